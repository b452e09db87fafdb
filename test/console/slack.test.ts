import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { addFeed } from '../../src/modules/chat-sync/commands/bound-feeds.js';
import { connectSync } from '../../src/modules/chat-sync/commands/connections.js';
import { SecretBox } from '../../src/shared/secret-box.js';
import { durationMs } from '../../src/shared/time.js';
import {
  browserSkipReason,
  type ConsoleServer,
  launchBrowser,
  newPage,
  seriousViolations,
  signInWithLink,
  startConsoleServer,
} from '../support/browser-kit.js';
import { type FakeChatServer, startFakeChatServer } from '../support/fake-chat-server.js';
import { engines } from '../support/harness.js';

const users = 5;
const messages = 4;

for (const { engine, skip } of engines) {
  describe(`console Slack page [${engine}]`, { skip: browserSkipReason || skip }, () => {
    let server: ConsoleServer;
    let browser: Browser;
    let fake: FakeChatServer;

    before(async () => {
      fake = await startFakeChatServer();
      for (let i = 0; i < users; i++)
        fake.addUser({ email: `user${i}@example.org`, id: `U${String(i).padStart(6, '0')}`, real_name: `User ${i}` });
      fake.addChannel({ id: 'C0GENERAL', name: 'general', num_members: users });
      for (let i = 0; i < messages; i++)
        fake.addMessage('C0GENERAL', { ts: `${1_700_000_000 + i * 60}.000100`, user: 'U000000', text: `hello ${i}` });
      server = await startConsoleServer(engine, 'Riverside Makers', {
        env: { CHAT_API_URL: fake.url, CHAT_TIMEOUT_MS: '3000', SECRETS_KEY: randomBytes(32).toString('base64') },
      });
      browser = await launchBrowser();
    });
    after(async () => {
      await browser?.close();
      await server?.stop();
      await fake?.close();
    });

    it('says when the community is not connected, and how to connect it; a backfill is refused with the hint', async () => {
      const { context, page, errors } = await newPage(browser, 360);
      await signInWithLink(page, server, '/console/slack');
      await page.getByText('This community is not connected to Slack.').waitFor();
      await page.getByText(`community-admin chat connect --community ${server.community.id}`).waitFor();
      await page.getByRole('button', { name: 'Start backfill' }).click();
      await page.getByRole('alert').getByText('This community has no chat bot connection.').waitFor();
      await page
        .getByRole('alert')
        .getByText(/Connect the Slack bot first/)
        .waitFor();
      assert.deepEqual(await seriousViolations(page), []);
      // The browser logs the refused call itself; nothing else went wrong.
      assert.deepEqual(
        errors.filter((error) => !error.includes('status of 400')),
        [],
      );
      await context.close();
    });

    it('shows the connection, the bot in its channel, the last sync and the queue; a backfill started from the page is watched to its end', async () => {
      const { database, clock, config } = server.t;
      const box = new SecretBox(config.secrets);
      await connectSync(
        { database, clock, box, communityId: server.community.id },
        {
          botToken: fake.botToken,
          signingSecret: 'sig-secret',
          apiAppId: undefined,
          apiUrl: fake.url,
          timeoutMs: durationMs(3000),
        },
      );
      await addFeed(
        { database, clock, box, communityId: server.community.id },
        {
          apiUrl: fake.url,
          timeoutMs: durationMs(3000),
          label: undefined,
          channelId: 'C0GENERAL',
          syncAll: true,
        },
      );

      const { context, page, errors } = await newPage(browser, 1280);
      await signInWithLink(page, server, '/console/slack');
      const connection = page.locator('section', { has: page.getByRole('heading', { name: 'Connection' }) });
      await connection.getByText('Connected', { exact: true }).waitFor();
      await connection.getByText(fake.teamId).waitFor();
      await connection.getByText('Never').waitFor();
      await connection.getByText('No events waiting').waitFor();
      await page.getByRole('row', { name: /#general/ }).waitFor();

      // Slow history pages, so that the job is seen running.
      fake.setBehaviour('conversations.history', { delayMs: 700 });
      await page.getByRole('button', { name: 'Start backfill' }).click();
      const job = page.locator('section', { has: page.getByRole('heading', { name: 'Backfill' }) });
      await job.getByText(/^(Queued|Running)$/).waitFor();
      assert.equal(await page.getByRole('button', { name: 'Start backfill' }).isDisabled(), true, 'one backfill at a time');
      await job.getByText('Succeeded', { exact: true }).waitFor({ timeout: 20_000 });
      fake.setBehaviour('conversations.history', 'ok');
      await job.getByText(`${users} read, ${users} changed`).waitFor();
      await job.getByText(`${messages} read, ${messages} posts created, 0 updated, 0 skipped`).waitFor();
      // The status follows: the last sync, the bot's presence checked by the job.
      await connection.getByText('succeeded').waitFor();
      await page
        .getByRole('row', { name: /#general/ })
        .getByText('In the channel')
        .waitFor();
      assert.equal(await page.getByRole('button', { name: 'Start backfill' }).isDisabled(), false);
      assert.deepEqual(await seriousViolations(page), []);

      // A backfill that Slack refuses ends failed, with Slack's answer.
      fake.setBehaviour('users.list', { error: 'invalid_auth' });
      try {
        await page.getByLabel('Messages since (optional)').fill('2023-11-14');
        await page.getByRole('button', { name: 'Start backfill' }).click();
        await job.getByText('Failed', { exact: true }).waitFor({ timeout: 20_000 });
        await job.getByText('Slack answered users.list with invalid_auth').waitFor();
        await connection.getByText(/Refused by Slack \(invalid_auth\)/).waitFor();
      } finally {
        fake.setBehaviour('users.list', 'ok');
      }
      await page.getByRole('button', { name: 'Check with Slack now' }).click();
      await connection.getByText('Connected', { exact: true }).waitFor();
      assert.deepEqual(errors, []);
      await context.close();
    });

    it('shows the API’s error, with its hint, when the page cannot be read', async () => {
      const { context, page } = await newPage(browser);
      await signInWithLink(page, server);
      await page.route('**/admin/v0/chat/status?*', (route) =>
        route.fulfill({
          status: 403,
          contentType: 'application/json',
          body: JSON.stringify({
            success: false,
            error: { code: 'insufficient_scope', message: 'This key lacks the permission.', hint: 'Sign in again with a new link.' },
          }),
        }),
      );
      await page.goto(`${server.baseUrl}/console/slack`);
      await page.getByRole('alert').getByText('This key lacks the permission.').waitFor();
      await page.getByRole('alert').getByText('Sign in again with a new link.').waitFor();
      await page.getByRole('alert').getByRole('button', { name: 'Try again' }).waitFor();
      await context.close();
    });
  });
}
