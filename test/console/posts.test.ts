import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import {
  browserSkipReason,
  type ConsoleServer,
  launchBrowser,
  newPage,
  signInBrowser,
  startConsoleServer,
} from '../support/browser-kit.js';
import * as fx from '../support/feed-fixtures.js';
import { engines } from '../support/harness.js';

const at = (minutes: number) => {
  const when = new Date(Date.UTC(2026, 10, 1, 12, minutes)).toISOString();
  return { created_at: when, updated_at: when, content_created_at: when, latest_activity_at: when };
};

for (const { engine, skip } of engines) {
  describe(`console Posts page [${engine}]`, { skip: browserSkipReason || skip }, () => {
    let server: ConsoleServer;
    let browser: Browser;
    before(async () => {
      server = await startConsoleServer(engine);
      await fx.importInto(server.t, server.community.id, {
        profiles: [fx.profile(1, { preferred_name: 'Ada Lovelace' })],
        feeds: [fx.feed(1, { label: 'Announcements' }), fx.feed(2, { label: 'Workshop' })],
        posts: [
          fx.post(1, 1, { title: 'Spring opening hours', body_plaintext: 'We open at nine from March.', ...at(1) }),
          fx.post(2, 2, { title: 'Soldering evening', body_plaintext: 'Bring your broken radios and a soldering iron.', ...at(2) }),
          fx.post(3, 2, { title: 'Bike clinic', body_plaintext: 'Tyres and brakes.', ...at(3) }),
        ],
      });
      browser = await launchBrowser();
    });
    after(async () => {
      await browser?.close();
      await server?.stop();
    });

    it('lists the Home feed and a feed’s posts with the API’s totals', async () => {
      const { context, page, errors } = await newPage(browser);
      await signInBrowser(page, server, '/console/posts');
      const posts = page.getByRole('table', { name: 'Posts', exact: true });
      await posts.getByRole('cell', { name: 'Spring opening hours' }).waitFor();
      await page.getByText('1–3 of 3').waitFor();
      await page.getByLabel('Feed', { exact: true }).selectOption({ label: 'Workshop' });
      await page.getByText('1–2 of 2').waitFor();
      assert.deepEqual(await posts.locator('tbody tr td:first-child').allInnerTexts(), ['Bike clinic', 'Soldering evening']);
      assert.deepEqual(errors, []);
      await context.close();
    });

    it('finds a post by a word of its body, and says when nothing matches', async () => {
      const { context, page } = await newPage(browser);
      await signInBrowser(page, server, '/console/posts');
      await page.getByLabel('Words to find').fill('radios');
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      const results = page.getByRole('table', { name: 'Posts matching “radios”' });
      await results.getByRole('cell', { name: 'Soldering evening' }).waitFor();
      assert.equal(await results.locator('tbody tr').count(), 1);
      assert.match(await results.locator('tbody tr').innerText(), /Workshop/);
      await page.getByLabel('Words to find').fill('zeppelin');
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await page.getByText('No post matches “zeppelin”.').waitFor();
      await context.close();
    });
  });
}
