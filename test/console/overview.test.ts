import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { createApiKey } from '../../src/modules/api-keys/api-keys.commands.js';
import { permissions } from '../../src/shared/permissions.js';
import {
  browserSkipReason,
  type ConsoleServer,
  launchBrowser,
  newPage,
  seriousViolations,
  signInBrowser,
  startConsoleServer,
} from '../support/browser-kit.js';
import { feed, importInto } from '../support/feed-fixtures.js';
import { engines } from '../support/harness.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

for (const { engine, skip } of engines) {
  describe(`console Overview page [${engine}]`, { skip: browserSkipReason || skip }, () => {
    let server: ConsoleServer;
    let browser: Browser;
    const receiver = new WebhookReceiver();
    const post = async (url: string, payload: Record<string, unknown>, method: 'POST' | 'PATCH' = 'POST') => {
      const answer = await server.t.request({ method, url, headers: server.community.auth, payload });
      assert.ok(answer.statusCode < 300, answer.body);
      return answer.json<{ data: { id: string } }>().data;
    };
    const count = (page: Page, name: string) => page.locator('.count', { has: page.getByRole('link', { name, exact: true }) });
    before(async () => {
      // The receiver listens on loopback over http.
      server = await startConsoleServer(engine, undefined, { env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
      browser = await launchBrowser();
      await receiver.start();
    });
    after(async () => {
      await browser?.close();
      await server?.stop();
      await receiver.stop();
    });

    it('a new community: zero counts, Slack not connected, no endpoint, the activity empty or its error', async () => {
      const { context, page, errors } = await newPage(browser);
      await signInBrowser(page, server, '/console/');
      await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
      for (const name of ['Members', 'Upcoming events', 'Feeds', 'Files'])
        await count(page, name).getByText('0', { exact: true }).waitFor();
      await page.getByRole('region', { name: 'Slack' }).getByText('Not connected').waitFor();
      await page.getByText('No webhook endpoint is registered.').waitFor();
      // Whatever the log holds already (making the community's key may be recorded), up to five, newest first.
      const logged = (
        await server.t.request({ method: 'GET', url: '/admin/v0/activities?per_page=5', headers: server.community.auth })
      ).json<{ data: { records: { action: string }[] } }>().data.records;
      const latest = page.getByRole('region', { name: 'Latest activity' });
      if (logged.length === 0) await latest.getByText('Nothing has been recorded yet.').waitFor();
      else {
        await latest.locator('ol.activity li').first().waitFor();
        assert.deepEqual(
          await latest.locator('ol.activity li code').allInnerTexts(),
          logged.map((r) => r.action),
        );
      }
      assert.deepEqual(await seriousViolations(page), []);
      assert.deepEqual(errors, []);
      await context.close();
    });

    it('counts from the lists’ totals, names a failing (disabled) endpoint with its reason, shows the latest activity', async () => {
      await post('/admin/v0/members', { email: 'ada@example.com', full_name: 'Ada Lovelace' });
      await post('/admin/v0/members', { email: 'grace@example.com', full_name: 'Grace Hopper' });
      const soon = new Date(Date.now() + 86_400_000).toISOString();
      await post('/admin/v0/calendar_events', { title: 'Repair café', start_date: soon });
      await post('/admin/v0/calendar_events', { title: 'Long ago', start_date: '2020-01-01T10:00:00Z' });
      await importInto(server.t, server.community.id, { feeds: [feed(1, { label: 'News' }), feed(2, { label: 'Workshop' })] });
      const healthy = await post('/admin/v0/webhook_endpoints', { url: `${receiver.url}/healthy` });
      const broken = await post('/admin/v0/webhook_endpoints', { url: `${receiver.url}/broken` });
      await post(`/admin/v0/webhook_endpoints/${broken.id}`, { enabled: false }, 'PATCH');
      assert.ok(healthy.id);

      const { context, page, errors } = await newPage(browser, 360);
      await signInBrowser(page, server, '/console/');
      await count(page, 'Members').getByText('2', { exact: true }).waitFor();
      await count(page, 'Upcoming events').getByText('1', { exact: true }).waitFor();
      await count(page, 'Feeds').getByText('2', { exact: true }).waitFor();
      await count(page, 'Files').getByText('0', { exact: true }).waitFor();
      const webhooks = page.getByRole('region', { name: 'Webhook endpoints' });
      await webhooks.getByText('1 of 2 endpoints failing (disabled):').waitFor();
      const failing = webhooks.locator('.failing li');
      assert.equal(await failing.count(), 1);
      assert.match(await failing.innerText(), /\/broken/);
      assert.doesNotMatch(await webhooks.innerText(), /\/healthy/);
      const activity = page.getByRole('region', { name: 'Latest activity' }).locator('ol.activity li');
      await activity.first().waitFor();
      assert.equal(await activity.count(), 5, 'the five latest');
      const logged = (
        await server.t.request({ method: 'GET', url: '/admin/v0/activities?per_page=5', headers: server.community.auth })
      ).json<{ data: { records: { action: string }[] } }>().data.records;
      assert.deepEqual(
        await activity.locator('code').allInnerTexts(),
        logged.map((r) => r.action),
      );
      assert.ok((await page.evaluate<number>('document.documentElement.scrollWidth')) <= 360, 'fits 360 px');
      assert.deepEqual(await seriousViolations(page), []);
      assert.deepEqual(errors, []);
      await context.close();
    });

    it('a part the key may not read shows the API’s message and hint; the others still show', async () => {
      const limited = await createApiKey(
        { database: server.t.database, clock: server.t.clock, communityId: server.community.id },
        { label: 'limited', permissions: new Set(permissions.filter((p) => p !== 'activities:read' && p !== 'webhooks:write')) },
      );
      const { context, page } = await newPage(browser);
      await signInBrowser(page, server, '/console/', { key: limited.key, keyId: limited.id });
      await count(page, 'Members').getByText('2', { exact: true }).waitFor();
      for (const [region, permission] of [
        ['Latest activity', 'activities:read'],
        ['Webhook endpoints', 'webhooks:write'],
      ] as const) {
        const alert = page.getByRole('region', { name: region }).getByRole('alert');
        await alert.waitFor();
        assert.match(await alert.locator('.error-message').innerText(), new RegExp(permission));
        assert.ok((await alert.locator('.error-hint').innerText()).length > 0);
      }
      await page.getByRole('region', { name: 'Slack' }).getByText('Not connected').waitFor();
      await context.close();
    });
  });
}
