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
import { engines } from '../support/harness.js';

type Event = { id: string; title: string; start_date: string; location: string };

for (const { engine, skip } of engines) {
  describe(`console Events page [${engine}]`, { skip: browserSkipReason || skip }, () => {
    let server: ConsoleServer;
    let browser: Browser;
    const api = async (url: string) => server.t.request({ method: 'GET', url, headers: server.community.auth });
    const events = async () =>
      (await api('/admin/v0/calendar_events?time_filter=all&per_page=50')).json<{ data: { records: Event[] } }>().data.records;
    before(async () => {
      server = await startConsoleServer(engine);
      browser = await launchBrowser();
    });
    after(async () => {
      await browser?.close();
      await server?.stop();
    });

    it('creates an event (the time entered in the viewer’s zone), edits it, and deletes it after asking', async () => {
      const { context, page, errors } = await newPage(browser, 1280, 'America/New_York');
      await signInBrowser(page, server, '/console/events');
      await page.getByText('No events match these filters.').waitFor();

      await page.getByRole('button', { name: 'New event' }).click();
      await page.getByRole('button', { name: 'Create event' }).click();
      assert.equal(await page.getByLabel('Title').getAttribute('aria-invalid'), 'true');
      await page.getByText('Give the event a title.').waitFor();

      const year = new Date().getFullYear() + 1;
      await page.getByLabel('Title').fill('Repair café');
      await page.getByLabel('Starts').fill(`${year}-03-14T18:30`);
      await page.getByLabel('Location').fill('Library, room 2');
      await page.getByRole('button', { name: 'Create event' }).click();
      await page.getByText('Created “Repair café”.').waitFor();
      const row = page.getByRole('row', { name: /Repair café/ });
      await row.waitFor();
      // 18:30 in New York on 14 March (EDT, UTC-4) is 22:30 UTC; the cell says so on hover.
      const [created] = await events();
      assert.equal(created?.title, 'Repair café');
      assert.equal(created?.start_date.slice(0, 16), `${year}-03-14T22:30`);
      assert.equal(await row.locator('time').getAttribute('title'), `${year}-03-14 22:30:00 UTC`);
      assert.match(await page.getByText(/1–1 of 1/).innerText(), /page 1 of 1/);

      await page.getByRole('button', { name: 'Edit Repair café' }).click();
      assert.equal(await page.getByLabel('Starts').inputValue(), `${year}-03-14T18:30`);
      await page.getByLabel('Title').fill('Repair café (spring)');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.getByText('Saved “Repair café (spring)”.').waitFor();
      await page.getByRole('row', { name: /Repair café \(spring\)/ }).waitFor();
      assert.equal((await events())[0]?.title, 'Repair café (spring)');
      assert.equal((await events())[0]?.location, 'Library, room 2');

      await page.getByRole('radio', { name: 'Month' }).check();
      await page.getByRole('button', { name: 'Next month' }).waitFor();
      await page.getByRole('radio', { name: 'List' }).check();

      await page.getByRole('button', { name: 'Delete Repair café (spring)' }).click();
      const dialog = page.getByRole('dialog', { name: 'Delete this event?' });
      await dialog.waitFor();
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'hidden' });
      assert.equal((await events()).length, 1, 'cancel deletes nothing');
      await page.getByRole('button', { name: 'Delete Repair café (spring)' }).click();
      await dialog.getByRole('button', { name: 'Delete event' }).click();
      await page.getByText('Deleted “Repair café (spring)”.').waitFor();
      await page.getByText('No events match these filters.').waitFor();
      assert.equal((await api(`/admin/v0/calendar_events/${created?.id}`)).statusCode, 404);
      assert.deepEqual(errors, []);
      await context.close();
    });

    it('shows the month of an event in the month view', async () => {
      const start = new Date();
      start.setDate(15);
      start.setHours(17, 0, 0, 0);
      const made = await server.t.request({
        method: 'POST',
        url: '/admin/v0/calendar_events',
        headers: server.community.auth,
        payload: { title: 'Mid-month meetup', start_date: start.toISOString() },
      });
      assert.equal(made.statusCode, 201, made.body);
      const { context, page } = await newPage(browser);
      await signInBrowser(page, server, '/console/events');
      await page.getByRole('radio', { name: 'Month' }).check();
      await page
        .locator('.day.has-events')
        .getByText(/Mid-month meetup/)
        .waitFor();
      await context.close();
    });

    it('renders community data as text: a title made of markup shows its characters and runs nothing', async () => {
      const title = '<img src=x onerror=alert(1)>';
      const made = await server.t.request({
        method: 'POST',
        url: '/admin/v0/calendar_events',
        headers: server.community.auth,
        payload: { title, start_date: new Date(Date.now() + 86_400_000).toISOString() },
      });
      assert.equal(made.statusCode, 201, made.body);
      const { context, page, errors } = await newPage(browser);
      let dialogs = 0;
      page.on('dialog', (dialog) => {
        dialogs += 1;
        void dialog.dismiss();
      });
      await signInBrowser(page, server, '/console/events');
      const cell = page.getByRole('cell', { name: title, exact: true });
      await cell.waitFor();
      assert.equal(await cell.innerText(), title);
      assert.equal(await page.locator('main img').count(), 0);
      await page.getByRole('button', { name: `Edit ${title}` }).click();
      assert.equal(await page.getByLabel('Title').inputValue(), title);
      assert.equal(dialogs, 0);
      assert.deepEqual(errors, []);
      await context.close();
    });
  });
}
