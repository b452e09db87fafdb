import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { createConsoleLink } from '../../src/modules/console-sessions/console-sessions.commands.js';
import { durationMs } from '../../src/shared/time.js';
import {
  browserSkipReason,
  type ConsoleServer,
  launchBrowser,
  newPage,
  seriousViolations,
  signInBrowser,
  startConsoleServer,
} from '../support/browser-kit.js';
import { engines } from '../support/harness.js';

type KeyRecord = { id: string; label: string; kind: string; permissions: string[]; expires_at: string | null };

for (const { engine, skip } of engines) {
  describe(`console API keys page [${engine}]`, { skip: browserSkipReason || skip }, () => {
    let server: ConsoleServer;
    let browser: Browser;
    /** Over real HTTP, as a client of the key would call. */
    const call = (path: string, key: string) => fetch(`${server.baseUrl}${path}`, { headers: { authorization: `Bearer ${key}` } });
    /** Signs in with a one-time link, as an operator does: the session is a console key holding every permission. */
    const signInWithLink = async (page: Page, path: string) => {
      const link = await createConsoleLink(
        { database: server.t.database, clock: server.t.clock, communityId: server.community.id },
        durationMs(60_000),
      );
      await page.goto(`${server.baseUrl}/console/#token=${link.token}`);
      await page.locator('nav[aria-label="Console"]').waitFor();
      await page.goto(`${server.baseUrl}${path}`);
      await page.getByRole('heading', { level: 1 }).waitFor();
      return page.evaluate<{ key: string; key_id: string }>(`JSON.parse(sessionStorage.getItem('community-admin.console.session'))`);
    };
    const secretShown = async (page: Page) => {
      const panel = page.locator('section.secret');
      await panel.waitFor();
      assert.match(await panel.innerText(), /it will not be shown again/);
      return panel.locator('.secret-text').innerText();
    };
    before(async () => {
      server = await startConsoleServer(engine);
      browser = await launchBrowser();
    });
    after(async () => {
      await browser?.close();
      await server?.stop();
    });

    it('creates a key with the ticked permissions and an expiry, its secret shown once; HTTP accepts it; rotated, then revoked after asking, HTTP refuses it', async () => {
      const { context, page, errors } = await newPage(browser, 1280, 'Europe/Paris');
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.baseUrl });
      const session = await signInWithLink(page, '/console/api-keys');
      const own = page.getByRole('row', { name: /Console session/ });
      await own.getByText('This session (sign out to end it)').waitFor();

      await page.getByRole('button', { name: 'New key' }).click();
      assert.equal(await page.getByRole('checkbox', { name: /api_keys:write/ }).isChecked(), false, 'never implied');
      await page.getByRole('button', { name: 'Create key' }).click();
      await page.getByText('Tick at least one permission.').waitFor();
      await page.getByLabel('Label').fill('Reporting');
      await page.getByRole('checkbox', { name: 'calendar_events:read' }).check();
      await page.getByRole('checkbox', { name: 'members:read' }).check();
      await page.getByLabel('Expires').selectOption({ label: 'In 30 days' });
      await page.getByRole('button', { name: 'Create key' }).click();
      const secret = await secretShown(page);
      await page.getByRole('button', { name: 'Copy the secret' }).click();
      await page.getByText('Copied', { exact: true }).waitFor();
      assert.equal(await page.evaluate<string>('navigator.clipboard.readText()'), secret);

      const made = (await (await call('/admin/v0/api_keys?per_page=50', session.key)).json()) as { data: { records: KeyRecord[] } };
      const reporting = made.data.records.find((k) => k.label === 'Reporting');
      assert.deepEqual(reporting?.permissions, ['calendar_events:read', 'members:read']);
      assert.equal(reporting?.kind, 'key');
      const days = (Date.parse(String(reporting?.expires_at)) - Date.now()) / 86_400_000;
      assert.ok(days > 29.9 && days <= 30, String(days));
      assert.equal((await call('/admin/v0/members', secret)).status, 200, 'the secret works over HTTP');
      assert.equal((await call('/admin/v0/api_keys', secret)).status, 403, 'it holds only what was ticked');

      // The row: kind, permissions, dates in the viewer's zone with UTC on hover; the secret is gone for good.
      await page.getByRole('button', { name: 'I have copied it' }).click();
      assert.equal(await page.locator('section.secret').count(), 0);
      assert.doesNotMatch(await page.locator('main').innerText(), new RegExp(secret));
      const row = page.getByRole('row', { name: /Reporting/ });
      assert.match(await row.innerText(), /API key/);
      assert.match(await row.innerText(), /calendar_events:read, members:read/);
      assert.match(String(await row.locator('td[data-label="Expires"] time').getAttribute('title')), / UTC$/);
      assert.deepEqual(await seriousViolations(page), []);

      await page.getByRole('button', { name: 'Rotate Reporting' }).click();
      const rotate = page.getByRole('dialog', { name: 'Rotate this key?' });
      await rotate.getByRole('button', { name: 'Rotate key' }).click();
      const rotated = await secretShown(page);
      assert.notEqual(rotated, secret);
      assert.match(await page.locator('section.secret').innerText(), /The old secret keeps working until/);
      assert.equal((await call('/admin/v0/members', rotated)).status, 200, 'the new secret works');
      await page.getByRole('button', { name: 'I have copied it' }).click();

      await page.getByRole('button', { name: 'Revoke Reporting' }).click();
      const revoke = page.getByRole('dialog', { name: 'Revoke this key?' });
      await revoke.getByRole('button', { name: 'Cancel' }).click();
      await revoke.waitFor({ state: 'hidden' });
      assert.equal((await call('/admin/v0/members', rotated)).status, 200, 'cancel revokes nothing');
      await page.getByRole('button', { name: 'Revoke Reporting' }).click();
      await revoke.getByRole('button', { name: 'Revoke key' }).click();
      await page.getByText('Revoked “Reporting”: it is refused from now on.').waitFor();
      await page.getByRole('row', { name: /Reporting/ }).waitFor({ state: 'detached' });
      // Each instance trusts a looked-up key for at most a second.
      let status = 0;
      for (const deadline = Date.now() + 3000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 200))) {
        status = (await call('/admin/v0/members', rotated)).status;
        if (status === 401) break;
      }
      assert.equal(status, 401, 'HTTP refuses the revoked key');
      assert.equal((await call('/admin/v0/members', secret)).status, 401, 'and its rotated-away secret');
      assert.deepEqual(errors, []);
      await context.close();
    });

    it('a key gets api_keys:write only when it is ticked; never-expiring; usable at 360 px', async () => {
      const { context, page, errors } = await newPage(browser, 360);
      const session = await signInWithLink(page, '/console/api-keys');
      await page.getByRole('button', { name: 'New key' }).click();
      await page.getByLabel('Label').fill('Key manager');
      await page.getByRole('checkbox', { name: /api_keys:write/ }).check();
      await page.getByLabel('Expires').selectOption({ label: 'Never' });
      await page.getByRole('button', { name: 'Create key' }).click();
      const secret = await secretShown(page);
      assert.ok((await page.evaluate<number>('document.documentElement.scrollWidth')) <= 360, 'fits 360 px');
      assert.equal((await call('/admin/v0/api_keys', secret)).status, 200);
      const listed = (await (await call('/admin/v0/api_keys?per_page=50', session.key)).json()) as { data: { records: KeyRecord[] } };
      const manager = listed.data.records.find((k) => k.label === 'Key manager');
      assert.deepEqual(manager?.permissions, ['api_keys:write']);
      assert.equal(manager?.expires_at, null);
      await page.getByRole('button', { name: 'I have copied it' }).click();
      await page.locator('tr', { hasText: 'Key manager' }).getByText('Never').first().waitFor();
      assert.ok((await page.evaluate<number>('document.documentElement.scrollWidth')) <= 360, 'fits 360 px');
      assert.deepEqual(await seriousViolations(page), []);
      assert.deepEqual(errors, []);
      await context.close();
    });

    it('a key without key management sees the API’s refusal, its message and hint', async () => {
      const { context, page } = await newPage(browser);
      // The harness key holds `all`, which never implies api_keys:write.
      await signInBrowser(page, server, '/console/api-keys');
      const alert = page.getByRole('alert');
      await alert.waitFor();
      assert.match(await alert.locator('.error-message').innerText(), /api_keys:write/);
      assert.ok((await alert.locator('.error-hint').innerText()).length > 0);
      await context.close();
    });
  });
}
