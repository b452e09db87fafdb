import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { DeliveryWorker } from '../../src/modules/webhooks/worker/deliveries.js';
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
import { engines } from '../support/harness.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };
const hourMs = 3_600_000;

for (const { engine, skip } of engines) {
  describe(`console Webhooks page [${engine}]`, { skip: browserSkipReason || skip }, () => {
    let server: ConsoleServer;
    let browser: Browser;
    let worker: DeliveryWorker;
    const receiver = new WebhookReceiver();
    let members = 0;

    before(async () => {
      await receiver.start();
      server = await startConsoleServer(engine, 'Riverside Makers', { env: { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_TIMEOUT_MS: '2000' } });
      // The server's delivery worker, ticked by the tests so that each attempt happens when they say.
      worker = new DeliveryWorker({
        database: server.t.database,
        clock: server.t.clock,
        log: silent,
        allowPrivate: true,
        timeoutMs: durationMs(2000),
      });
      browser = await launchBrowser();
    });
    after(async () => {
      await browser?.close();
      await server?.stop();
      await receiver.stop();
    });

    /** A real change over the API that emits member.created. */
    const addMember = async () => {
      members += 1;
      const made = await server.t.request({
        method: 'POST',
        url: '/admin/v0/members',
        headers: server.community.auth,
        payload: { email: `member${members}@example.org`, full_name: `Member ${members}` },
      });
      assert.equal(made.statusCode, 201, made.body);
    };
    const api = (method: 'GET' | 'POST', url: string, payload?: Record<string, unknown>) =>
      server.t.request({ method, url, headers: server.community.auth, ...(payload ? { payload } : {}) });
    const openDeliveries = async (page: Page, url: string) => {
      await page.getByRole('button', { name: `Deliveries to ${url}` }).click();
      await page.getByRole('heading', { level: 2, name: `Deliveries to ${url}` }).waitFor();
    };

    it('creates an endpoint with chosen types (secret shown once), shows its failed attempt, and a redeliver from the page arrives signed', async () => {
      receiver.reset();
      receiver.fallback = 500;
      const { context, page, errors } = await newPage(browser, 1280, 'Europe/Paris');
      await signInWithLink(page, server, '/console/webhooks');
      await page.getByText('No webhook endpoints yet').waitFor();

      await page.getByRole('button', { name: 'New endpoint' }).click();
      await page.getByRole('button', { name: 'Create endpoint' }).click();
      await page.getByText('Give the receiver’s full URL').waitFor();
      await page.getByText('Tick at least one event type').waitFor();
      await page.getByLabel('URL').fill(receiver.url);
      await page.getByRole('checkbox', { name: /^member\.created/ }).check();
      assert.equal(await page.getByRole('checkbox').count(), 14, 'every type of the closed list, and "every type"');
      assert.deepEqual(await seriousViolations(page), []);
      await page.getByRole('button', { name: 'Create endpoint' }).click();
      const secret = (await page.locator('.secret-value code').innerText()).trim();
      assert.match(secret, /^whsec_/);
      await page.getByRole('button', { name: 'Copy the signing secret' }).waitFor();
      receiver.secrets = [secret];
      await page.getByRole('button', { name: 'I have stored it' }).click();
      assert.equal(await page.locator('.secret-value').count(), 0, 'the secret is not shown again');
      const row = page.getByRole('row', { name: new RegExp(receiver.url) });
      await row.getByRole('cell', { name: 'member.created', exact: true }).waitFor();
      await row.getByText('Enabled', { exact: true }).waitFor();
      const listed = (await api('GET', '/admin/v0/webhook_endpoints')).json<{ data: { id: string; events: string[] }[] }>().data;
      assert.deepEqual(listed[0]?.events, ['member.created']);

      // The receiver fails the first delivery.
      await addMember();
      assert.equal(await worker.tick(), 1);
      assert.equal(receiver.received.length, 1);
      await openDeliveries(page, receiver.url);
      const delivery = page.getByRole('row', { name: /member\.created/ }).filter({ hasText: 'pending' });
      await delivery.getByText('Failed · HTTP 500').waitFor();
      const attemptTime = delivery.locator('.attempt time');
      assert.match(String(await attemptTime.getAttribute('title')), /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/);

      // Fixed, then redelivered from the page: it arrives, signed, with the same webhook-id.
      receiver.fallback = 200;
      const webhookId = receiver.received[0]?.id ?? '';
      await page.getByRole('button', { name: `Redeliver member.created ${webhookId}` }).click();
      await page.getByText(`Queued member.created (${webhookId}) again.`).waitFor();
      assert.equal(await worker.tick(), 1);
      await receiver.waitFor(2);
      const arrived = receiver.received[1];
      assert.equal(arrived?.id, webhookId);
      assert.deepEqual(arrived?.verifiedWith, [secret]);
      const verified = new Webhook(secret).verify(arrived?.body ?? '', {
        'webhook-id': arrived?.id ?? '',
        'webhook-timestamp': arrived?.timestamp ?? '',
        'webhook-signature': arrived?.signature ?? '',
      }) as { type: string };
      assert.equal(verified.type, 'member.created');
      await page.getByRole('button', { name: 'Refresh' }).click();
      await page
        .getByRole('row', { name: /member\.created/ })
        .getByText('delivered')
        .waitFor();
      await page.getByText('Succeeded · HTTP 200').waitFor();
      assert.deepEqual(await seriousViolations(page), []);

      // A test event, answered by the receiver; then a failing one, said as a failure.
      await page.getByRole('button', { name: `Send a test event to ${receiver.url}` }).click();
      await page.getByText(`Test event delivered to ${receiver.url}: HTTP 200`).waitFor();
      receiver.fallback = 503;
      await page.getByRole('button', { name: `Send a test event to ${receiver.url}` }).click();
      await page.getByRole('alert').getByText(`Test event not delivered to ${receiver.url}: HTTP 503`).waitFor();
      receiver.fallback = 200;

      // Disable (asks first), enable.
      await page.getByRole('button', { name: `Disable ${receiver.url}` }).click();
      const dialog = page.getByRole('dialog', { name: 'Disable this endpoint?' });
      await dialog.getByRole('button', { name: 'Disable endpoint' }).click();
      await page.getByText(`Disabled ${receiver.url}.`).waitFor();
      await page
        .getByRole('row', { name: new RegExp(receiver.url) })
        .getByText(/^Disabled/)
        .waitFor();
      assert.equal((await api('GET', '/admin/v0/webhook_endpoints')).json<{ data: { disabled: boolean }[] }>().data[0]?.disabled, true);
      await page.getByRole('button', { name: `Enable ${receiver.url}` }).click();
      await page.getByText(`Enabled ${receiver.url}.`).waitFor();
      assert.equal((await api('GET', '/admin/v0/webhook_endpoints')).json<{ data: { disabled: boolean }[] }>().data[0]?.disabled, false);

      // Delete asks first; cancelled from the keyboard (Enter opens, the focus is in the dialog, Escape closes), it keeps it.
      await page.getByRole('button', { name: `Delete ${receiver.url}` }).focus();
      await page.keyboard.press('Enter');
      const deleting = page.getByRole('dialog', { name: 'Delete this endpoint?' });
      await deleting.waitFor();
      assert.equal(await page.evaluate(`document.activeElement?.closest('dialog[open]') !== null`), true, 'the focus is in the dialog');
      await page.keyboard.press('Escape');
      await deleting.waitFor({ state: 'hidden' });
      assert.equal((await api('GET', '/admin/v0/webhook_endpoints')).json<{ data: unknown[] }>().data.length, 1);
      await page.getByRole('button', { name: `Delete ${receiver.url}` }).click();
      await deleting.getByRole('button', { name: 'Delete endpoint' }).click();
      await page.getByText('No webhook endpoints yet').waitFor();
      assert.equal((await api('GET', '/admin/v0/webhook_endpoints')).json<{ data: unknown[] }>().data.length, 0);
      assert.deepEqual(errors, []);
      await context.close();
    });

    it('filters failed deliveries and redelivers every failed one since a time, saying how many were queued', async () => {
      receiver.reset();
      const url = `${receiver.url}?endpoint=b`;
      const made = await api('POST', '/admin/v0/webhook_endpoints', { url, events: ['member.created'] });
      assert.equal(made.statusCode, 201, made.body);
      receiver.secrets = [made.json<{ data: { secret: string } }>().data.secret];
      // Two deliveries fail for days (the server's clock moved on past each wait), so long that the endpoint is disabled.
      receiver.fallback = 500;
      await addMember();
      await addMember();
      for (let i = 0; i < 12; i++) {
        await worker.tick();
        server.t.clock.advance(26 * hourMs);
      }
      server.t.clock.set(Date.now());
      const endpointId = made.json<{ data: { id: string } }>().data.id;
      const failedUrl = `/admin/v0/webhook_endpoints/${endpointId}/deliveries?status=failed`;
      const failed = await api('GET', failedUrl);
      assert.equal(failed.json<{ data: { total_records: number } }>().data.total_records, 2);

      const { context, page, errors } = await newPage(browser, 360);
      await signInWithLink(page, server, '/console/webhooks');
      await page
        .getByRole('row', { name: new RegExp(url.replace(/[?.]/g, '\\$&')) })
        .getByText(/^Disabled: failing since/)
        .waitFor();
      // Enabled again once the receiver works; a new delivery is delivered.
      receiver.fallback = 200;
      await page.getByRole('button', { name: `Enable ${url}` }).click();
      await page.getByText(`Enabled ${url}.`).waitFor();
      await addMember();
      assert.equal(await worker.tick(), 1);

      await openDeliveries(page, url);
      await page.getByText(/1–3 of 3/).waitFor();
      await page.getByRole('checkbox', { name: 'Failed only' }).check();
      await page.getByText(/1–2 of 2/).waitFor();
      assert.equal(
        await page
          .getByRole('row', { name: /member\.created/ })
          .filter({ hasText: 'delivered' })
          .count(),
        0,
      );
      assert.ok((await page.locator('.attempt-failed').count()) >= 4, 'every failed attempt of both');
      assert.deepEqual(await seriousViolations(page), []);

      const before = receiver.received.length;
      await page.getByRole('button', { name: 'Redeliver failed' }).click();
      const dialog = page.getByRole('dialog', { name: 'Redeliver failed deliveries?' });
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'hidden' });
      assert.equal((await api('GET', failedUrl)).json<{ data: { total_records: number } }>().data.total_records, 2);
      await page.getByRole('button', { name: 'Redeliver failed' }).click();
      await dialog.getByRole('button', { name: 'Redeliver failed' }).click();
      await page.getByText('Queued 2 failed deliveries again.').waitFor();
      await page.getByText('No failed deliveries.').waitFor();
      assert.equal(await worker.tick(), 2);
      await receiver.waitFor(before + 2);
      assert.ok(receiver.received.slice(before).every((r) => r.verifiedWith.length === 1));
      await page.getByRole('checkbox', { name: 'Failed only' }).uncheck();
      await page.getByText(/1–3 of 3/).waitFor();
      assert.equal(
        await page
          .getByRole('row', { name: /member\.created/ })
          .filter({ hasText: 'delivered' })
          .count(),
        3,
      );
      assert.deepEqual(errors, []);
      await context.close();
    });

    it('shows the API’s error, with its hint, when the list cannot be read', async () => {
      const { context, page } = await newPage(browser);
      await signInWithLink(page, server, '/console/webhooks');
      await page.route('**/admin/v0/webhook_endpoints', (route) =>
        route.fulfill({
          status: 503,
          contentType: 'application/json',
          body: JSON.stringify({
            success: false,
            error: { code: 'database_unavailable', message: 'The database is unavailable.', hint: 'Try again in a moment.' },
          }),
        }),
      );
      await page.reload();
      await page.getByRole('alert').getByText('The database is unavailable.').waitFor();
      await page.getByRole('alert').getByText('Try again in a moment.').waitFor();
      await context.close();
    });
  });
}
