import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import {
  browserSkipReason,
  type ConsoleServer,
  launchBrowser,
  newPage,
  seriousViolations,
  signInBrowser,
  startConsoleServer,
} from '../support/browser-kit.js';
import { importInto, profileId } from '../support/feed-fixtures.js';
import { engines } from '../support/harness.js';

type Award = { id: string; name: string; description: string | null; emoji: string | null; assigned_count: number };

for (const { engine, skip } of engines) {
  describe(`console Awards page [${engine}]`, { skip: browserSkipReason || skip }, () => {
    let server: ConsoleServer;
    let browser: Browser;
    const awards = async () =>
      (await server.t.request({ method: 'GET', url: '/admin/v0/awards', headers: server.community.auth })).json<{
        data: { records: Award[] };
      }>().data.records;
    before(async () => {
      server = await startConsoleServer(engine);
      browser = await launchBrowser();
      await importInto(server.t, server.community.id, {
        profiles: [{ profile_id: profileId(1), email: 'ada@example.com', first_name: 'Ada', last_name: 'Lovelace', chat_user_id: 'U0ADA' }],
        members: [
          {
            id: 'c0000000-0000-4000-8000-000000000001',
            email: 'ada@example.com',
            full_name: 'Ada Lovelace',
            chat_profile_id: profileId(1),
            created_at: '2024-01-01T00:00:00Z',
            updated_at: '2024-01-01T00:00:00Z',
          },
          {
            id: 'c0000000-0000-4000-8000-000000000002',
            email: 'adam@example.com',
            full_name: 'Adam Nochat',
            created_at: '2024-01-01T00:00:00Z',
            updated_at: '2024-01-01T00:00:00Z',
          },
        ],
      });
    });
    after(async () => {
      await browser?.close();
      await server?.stop();
    });

    it('starts empty, creates an award (a refused field shown under it), refuses a name already used', async () => {
      const { context, page, errors } = await newPage(browser);
      await signInBrowser(page, server, '/console/awards');
      await page.getByText('The community has no awards yet.').waitFor();
      await page.getByRole('button', { name: 'New award' }).click();
      await page.getByRole('button', { name: 'Create award' }).click();
      await page.getByText('Give the award a name.').waitFor();
      await page.getByLabel('Name', { exact: true }).fill('Helping hand');
      await page.getByLabel('Emoji (optional)').fill('not an emoji');
      await page.getByLabel('Description (optional)').fill('For fixing someone else’s bike.');
      await page.getByRole('button', { name: 'Create award' }).click();
      await page.locator('.field-invalid').getByLabel('Emoji (optional)').waitFor();
      assert.equal((await awards()).length, 0);
      await page.getByLabel('Emoji (optional)').fill(':raised_hands:');
      await page.getByRole('button', { name: 'Create award' }).click();
      await page.getByText('Created “Helping hand”.').waitFor();
      const row = page.getByRole('row', { name: /Helping hand/ });
      await row.waitFor();
      assert.equal(await row.locator('td[data-label="Holders"]').innerText(), '0');
      assert.deepEqual(
        (await awards()).map(({ name, description, emoji }) => ({ name, description, emoji })),
        [{ name: 'Helping hand', description: 'For fixing someone else’s bike.', emoji: ':raised_hands:' }],
      );

      await page.getByRole('button', { name: 'New award' }).click();
      await page.getByLabel('Name', { exact: true }).fill('Helping hand');
      await page.getByRole('button', { name: 'Create award' }).click();
      await page.getByText(/already has an award named "Helping hand"/).waitFor();
      assert.equal((await awards()).length, 1);
      assert.deepEqual(await seriousViolations(page), []);
      assert.deepEqual(
        errors.filter((e) => !/status of 400/.test(e)),
        [],
      );
      await context.close();
    });

    it('gives an award to a member found by search; the holder count follows; a member without a profile gets the API’s refusal', async () => {
      const { context, page, errors } = await newPage(browser, 360);
      await signInBrowser(page, server, '/console/awards');
      await page.getByRole('button', { name: 'Give Helping hand to a member' }).click();
      const form = page.getByRole('form', { name: 'Give “Helping hand” to a member' });
      await form.getByRole('button', { name: 'Give award' }).click();
      await page.getByText('Search, then choose a member.').waitFor();
      await page.getByLabel('Find a member (name or email)').fill('ada');
      await page.keyboard.press('Enter');
      await form.getByRole('radio', { name: /Ada Lovelace/ }).waitFor();
      assert.equal(await form.getByRole('radio').count(), 2, 'Ada and Adam match');
      await form.getByRole('radio', { name: /Ada Lovelace/ }).check();
      await form.getByRole('button', { name: 'Give award' }).click();
      await page.getByText('Gave “Helping hand” to Ada Lovelace.').waitFor();
      await page.locator('td[data-label="Holders"]').getByText('1', { exact: true }).waitFor();
      assert.equal((await awards())[0]?.assigned_count, 1);
      assert.ok((await page.evaluate<number>('document.documentElement.scrollWidth')) <= 360, 'fits 360 px');

      await page.getByRole('button', { name: 'Give Helping hand to a member' }).click();
      await page.getByLabel('Find a member (name or email)').fill('adam@');
      await page.getByRole('button', { name: 'Find' }).click();
      await form.getByRole('radio', { name: /Adam Nochat/ }).check();
      await form.getByRole('button', { name: 'Give award' }).click();
      const alert = form.getByRole('alert');
      await alert.waitFor();
      assert.match(await alert.locator('.error-message').innerText(), /not found/i);
      assert.equal((await awards())[0]?.assigned_count, 1);
      assert.deepEqual(await seriousViolations(page), []);
      assert.deepEqual(
        errors.filter((e) => !/status of 404/.test(e)),
        [],
      );
      await context.close();
    });
  });
}
