import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import {
  allLoaded,
  browserSkipReason,
  type ConsoleServer,
  launchBrowser,
  newPage,
  seriousViolations,
  signInWithLink,
  startConsoleServer,
} from '../support/browser-kit.js';
import { engines } from '../support/harness.js';

interface Activity {
  id: string;
  action: string;
  target: { name: string | null };
}

for (const { engine, skip } of engines) {
  describe(`console Activity page [${engine}]`, { skip: browserSkipReason || skip }, () => {
    let server: ConsoleServer;
    let browser: Browser;
    before(async () => {
      server = await startConsoleServer(engine);
      browser = await launchBrowser();
    });
    after(async () => {
      await browser?.close();
      await server?.stop();
    });

    /** Applies the filters and waits for the API's answer (the totals shown before may look the same as the next). */
    const apply = async (page: Page) => {
      await Promise.all([
        page.waitForResponse((response) => response.url().includes('/admin/v0/activities?')),
        page.getByRole('button', { name: 'Apply filters' }).click(),
      ]);
      await allLoaded(page);
    };
    /** Clicks an export button: the file is the server's export (GET /activities/export), with the filters shown. */
    const exported = async (page: Page, button: string) => {
      const [download, request] = await Promise.all([
        page.waitForEvent('download'),
        page.waitForRequest((r) => r.url().includes('/admin/v0/activities/export?')),
        page.getByRole('button', { name: button }).click(),
      ]);
      return {
        name: download.suggestedFilename(),
        query: new URL(request.url()).searchParams,
        text: await readFile(String(await download.path()), 'utf8'),
      };
    };

    it('shows a change made over the API, filters by action, actor and time, reads its changes, and exports the filtered records', async () => {
      const made = await server.t.request({
        method: 'POST',
        url: '/admin/v0/calendar_events',
        headers: server.community.auth,
        payload: { title: 'Repair café', start_date: new Date(Date.now() + 86_400_000).toISOString() },
      });
      assert.equal(made.statusCode, 201, made.body);
      const eventId = made.json<{ data: { id: string } }>().data.id;
      const changed = await server.t.request({
        method: 'PATCH',
        url: `/admin/v0/calendar_events/${eventId}`,
        headers: server.community.auth,
        payload: { title: 'Repair café (spring)' },
      });
      assert.equal(changed.statusCode, 200, changed.body);

      const { context, page, errors } = await newPage(browser, 360);
      await signInWithLink(page, server, '/console/activity');
      const rows = page.getByRole('row').filter({ has: page.getByRole('cell') });
      await page.getByText(/^1–\d+ of \d+/).waitFor();
      // Newest first: the change, then the creation (the key's own creation, and the sign-in once it is recorded, around them).
      const actions = await rows.locator('td[data-label="Action"]').allInnerTexts();
      assert.ok(actions.includes('calendar_event.created'), actions.join());
      assert.equal(actions.indexOf('calendar_event.updated'), actions.indexOf('calendar_event.created') - 1, actions.join());
      const time = rows.first().locator('time');
      assert.match(String(await time.getAttribute('title')), /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/);

      await page.getByLabel('Action').selectOption('calendar_event.created');
      await apply(page);
      await page.getByText(/1–1 of 1/).waitFor();
      const created = rows.first();
      await created.getByText('Repair café', { exact: true }).waitFor();
      await created.getByText(eventId).waitFor();
      await created.getByText('test (api_key)').waitFor();

      await page.getByLabel('Action').selectOption('calendar_event.*');
      await apply(page);
      await page.getByText(/1–2 of 2/).waitFor();
      const updated = rows.filter({ hasText: 'calendar_event.updated' });
      await updated.locator('summary').click();
      await updated.getByText('title: “Repair café” → “Repair café (spring)”').waitFor();
      assert.deepEqual(await seriousViolations(page), []);

      // Export what the filters show: oldest first, as the CLI's export.
      const jsonl = await exported(page, 'Export JSON Lines');
      assert.match(jsonl.name, /^activity-.*\.jsonl$/);
      const lines = jsonl.text
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as Activity);
      assert.deepEqual(
        lines.map((r) => r.action),
        ['calendar_event.created', 'calendar_event.updated'],
      );
      assert.equal(jsonl.query.get('format'), 'jsonl');
      assert.equal(jsonl.query.get('action'), 'calendar_event.*');
      await page.getByText(/^Exported activity-.*\.jsonl \(JSON Lines\)\.$/).waitFor();
      const api = await server.t.request({
        method: 'GET',
        url: '/admin/v0/activities?action=calendar_event.*',
        headers: server.community.auth,
      });
      assert.deepEqual(
        lines.map((r) => r.id),
        api
          .json<{ data: { records: Activity[] } }>()
          .data.records.map((r) => r.id)
          .reverse(),
      );
      const csv = await exported(page, 'Export CSV');
      const csvLines = csv.text.split('\r\n').filter(Boolean);
      // The CLI's columns, written by the server: the console defines none of its own.
      assert.equal(
        csvLines[0],
        'id,occurred_at,action,actor_type,actor_id,actor_label,target_type,target_id,target_name,request_id,ip,user_agent,changes,metadata,hash',
      );
      assert.equal(csvLines.length, 3);
      assert.match(csvLines[2] ?? '', /calendar_event\.updated/);

      // By actor: the console session (the sign-in) apart from the API key.
      await page.getByLabel('Action').selectOption('');
      await page.getByLabel('Actor type').selectOption('api_key');
      await page.getByLabel('Actor id').fill(server.community.keyId);
      await apply(page);
      await page.getByText(/1–2 of 2/).waitFor();
      assert.deepEqual(await rows.locator('td[data-label="Action"]').allInnerTexts(), ['calendar_event.updated', 'calendar_event.created']);
      await page.getByLabel('Actor id').fill('00000000-0000-4000-8000-000000000000');
      await apply(page);
      await page.getByText('No records match these filters.').waitFor();

      // By target and by time.
      await page.getByRole('button', { name: 'Clear filters' }).click();
      await page.getByLabel('Target type').fill('calendar_event');
      await page.getByLabel('Target id').fill(eventId);
      await apply(page);
      await page.getByText(/1–2 of 2/).waitFor();
      const tomorrow = new Date(Date.now() + 86_400_000);
      const pad = (n: number) => String(n).padStart(2, '0');
      await page.getByLabel('Since').fill(`${tomorrow.getFullYear()}-${pad(tomorrow.getMonth() + 1)}-${pad(tomorrow.getDate())}T00:00`);
      await apply(page);
      await page.getByText('No records match these filters.').waitFor();
      assert.deepEqual(errors, []);
      await context.close();
    });

    it('shows the API’s error, with its hint, when the page cannot be read', async () => {
      const { context, page } = await newPage(browser);
      await signInWithLink(page, server);
      await page.route('**/admin/v0/activities?*', (route) =>
        route.fulfill({
          status: 403,
          contentType: 'application/json',
          body: JSON.stringify({
            success: false,
            error: { code: 'insufficient_scope', message: 'This key lacks the permission.', hint: 'Sign in again with a new link.' },
          }),
        }),
      );
      await page.goto(`${server.baseUrl}/console/activity`);
      await page.getByRole('alert').getByText('This key lacks the permission.').waitFor();
      await page.getByRole('alert').getByText('Sign in again with a new link.').waitFor();
      await page.getByRole('alert').getByRole('button', { name: 'Try again' }).waitFor();
      await context.close();
    });
  });
}
