// npm run console:screenshots: every page of the console at 1280 and 360 px into docs/console/,
// on a fresh SQLite database with a few events, feeds and posts (shown in docs/console.md).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createApiKey } from '../../src/modules/api-keys/api-keys.commands.js';
import { permissions } from '../../src/shared/permissions.js';
import { allLoaded, browserSkipReason, launchBrowser, newPage, signInBrowser, startConsoleServer } from '../support/browser-kit.js';
import { projectRoot } from '../support/cli.js';
import * as fx from '../support/feed-fixtures.js';
import { fixture, multipartBody, uploadParts } from '../support/multipart.js';
import { operationsSeed } from './screenshots-operations.js';

const pages = [
  ['overview', '/console/'],
  ['events', '/console/events'],
  ['members', '/console/members'],
  ['posts', '/console/posts'],
  ['files', '/console/files'],
  ['awards', '/console/awards'],
  ['api-keys', '/console/api-keys'],
  ['webhooks', '/console/webhooks'],
  ['slack', '/console/slack'],
  ['activity', '/console/activity'],
] as const;

if (browserSkipReason) {
  console.error(browserSkipReason);
  process.exit(1);
}

const out = join(projectRoot, 'docs', 'console');
mkdirSync(out, { recursive: true });
const operations = await operationsSeed();
const server = await startConsoleServer('sqlite', undefined, { env: operations.env });
try {
  const overrides = await operations.seed(server);
  const day = 86_400_000;
  const titles = ['Repair café', 'Soldering evening', 'Bike clinic', 'Annual general meeting'];
  for (const [i, title] of titles.entries()) {
    const start = new Date(Date.now() + (i * 3 + 1) * day);
    start.setUTCHours(18, 30, 0, 0);
    await server.t.request({
      method: 'POST',
      url: '/admin/v0/calendar_events',
      headers: server.community.auth,
      payload: { title, start_date: start.toISOString(), location: i % 2 ? 'Workshop' : 'Library, room 2' },
    });
  }
  const when = (n: number) => {
    const at = new Date(Date.now() - n * day).toISOString();
    return { created_at: at, updated_at: at, content_created_at: at, latest_activity_at: at };
  };
  await fx.importInto(server.t, server.community.id, {
    profiles: [fx.profile(1, { preferred_name: 'Ada Lovelace' })],
    feeds: [fx.feed(1, { label: 'Announcements' }), fx.feed(2, { label: 'Workshop' })],
    posts: [
      fx.post(1, 1, { title: 'Spring opening hours', body_plaintext: 'We open at nine from March.', ...when(1) }),
      fx.post(2, 2, { title: 'Soldering evening', body_plaintext: 'Bring your broken radios.', ...when(2) }),
      fx.post(3, 2, { title: 'Bike clinic', body_plaintext: 'Tyres and brakes.', ...when(3) }),
    ],
  });
  // --- console-pages-a: members, awards, files and keys, and a session holding every permission by name ---
  const auth = server.community.auth;
  for (const [email, full_name] of [
    ['grace@example.org', 'Grace Hopper'],
    ['linus@example.org', 'Linus Pauling'],
    ['zoe@example.org', 'Zoë Ålander'],
  ])
    await server.t.request({ method: 'POST', url: '/admin/v0/members', headers: auth, payload: { email, full_name } });
  await server.t.request({
    method: 'POST',
    url: '/admin/v0/members',
    headers: auth,
    payload: { email: 'person1@example.com', full_name: 'Ada Lovelace' },
  });
  const award = await server.t.request({
    method: 'POST',
    url: '/admin/v0/awards',
    headers: auth,
    payload: { name: 'Helping hand', description: 'For fixing someone else’s bike.', emoji: ':raised_hands:' },
  });
  await server.t.request({
    method: 'POST',
    url: `/admin/v0/awards/${award.json<{ data: { id: string } }>().data.id}/assign`,
    headers: auth,
    payload: { recipient: { email: 'person1@example.com' } },
  });
  await server.t.request({
    method: 'POST',
    url: '/admin/v0/awards',
    headers: auth,
    payload: { name: 'First soldering joint', emoji: ':zap:' },
  });
  for (const [name, file] of [
    ['minutes 2026.pdf', 'tiny.pdf'],
    ['workshop.png', 'tiny.png'],
  ]) {
    const { payload, headers } = multipartBody(uploadParts(fixture(file), name));
    await server.t.request({ method: 'POST', url: '/admin/v0/files', headers: { ...auth, ...headers }, payload });
  }
  const deps = { database: server.t.database, clock: server.t.clock };
  await createApiKey(
    { ...deps, communityId: server.community.id },
    { label: 'Reporting', permissions: new Set(['calendar_events:read', 'members:read'] as const) },
  );
  const session = await createApiKey(
    { ...deps, communityId: server.community.id },
    { label: 'Console session', permissions: new Set(permissions) },
  );

  const browser = await launchBrowser();
  for (const width of [1280, 360]) {
    const { context, page } = await newPage(browser, width);
    await signInBrowser(page, server, '/console/', { key: session.key, keyId: session.id });
    for (const [name, path] of pages) {
      await page.goto(`${server.baseUrl}${overrides[name] ?? path}`);
      await page.locator('h1').waitFor();
      await allLoaded(page);
      const file = join(out, `${name}-${width}.png`);
      await page.screenshot({ path: file, fullPage: true });
      console.log(`saved ${file}`);
    }
    await context.close();
  }
  await browser.close();
} finally {
  await server.stop();
  await operations.stop();
}
