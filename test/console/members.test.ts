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

type Member = { id: string; email: string; full_name: string; is_deactivated: boolean };
type Group = { id: string; name: string; member_count: number };

const memberId = (n: number) => `c0000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
const member = (n: number, fullName: string, email: string, joined: string, extra: Record<string, unknown> = {}) => ({
  id: memberId(n),
  email,
  full_name: fullName,
  created_at: joined,
  updated_at: joined,
  ...extra,
});

for (const { engine, skip } of engines) {
  describe(`console Members page [${engine}]`, { skip: browserSkipReason || skip }, () => {
    let server: ConsoleServer;
    let browser: Browser;
    const get = async <T>(url: string) =>
      (await server.t.request({ method: 'GET', url, headers: server.community.auth })).json<{ data: { records: T[] } }>().data.records;
    before(async () => {
      server = await startConsoleServer(engine);
      browser = await launchBrowser();
    });
    after(async () => {
      await browser?.close();
      await server?.stop();
    });

    it('starts empty, then adds a member: a missing or refused field is shown under it, the API’s message by the field', async () => {
      const { context, page, errors } = await newPage(browser);
      await signInBrowser(page, server, '/console/members');
      await page.getByText('The community has no members yet.').waitFor();
      await page.getByRole('button', { name: 'Add member' }).click();
      const form = page.getByRole('form', { name: 'Add a member' });
      await form.getByRole('button', { name: 'Add member' }).click();
      await page.getByText('Give the member’s email address.').waitFor();
      assert.equal(await page.getByLabel('Email', { exact: true }).getAttribute('aria-invalid'), 'true');

      // The browser does not check the address (noValidate): the API refuses it and the page puts its words under the field.
      await page.getByLabel('Email', { exact: true }).fill('not-an-email');
      await page.getByLabel('Full name').fill('Grace Hopper');
      await form.getByRole('button', { name: 'Add member' }).click();
      const fieldError = form.locator('.field-error');
      await fieldError.waitFor();
      assert.match(await fieldError.innerText(), /email/i);
      assert.equal(await page.getByLabel('Email', { exact: true }).getAttribute('aria-invalid'), 'true');
      assert.equal((await get<Member>('/admin/v0/members')).length, 0, 'nothing was added');

      await page.getByLabel('Email', { exact: true }).fill('grace@example.org');
      await form.getByRole('button', { name: 'Add member' }).click();
      await page.getByText(/Member created\. \(Grace Hopper, grace@example\.org\)/).waitFor();
      await page.getByRole('cell', { name: 'grace@example.org', exact: true }).waitFor();
      const [added] = await get<Member>('/admin/v0/members');
      assert.equal(added?.full_name, 'Grace Hopper');
      // The browser logs the refused call (400); nothing else may show up.
      assert.deepEqual(
        errors.filter((e) => !/status of 400/.test(e)),
        [],
      );
      await context.close();
    });

    it('finds members by name or email, filters by status, sorts by name or join date, pages with the API’s totals', async () => {
      await importInto(server.t, server.community.id, {
        members: [
          member(1, 'Ada Lovelace', 'ada@example.com', '2024-03-01T10:00:00Z'),
          member(2, 'Zoë Ålander', 'zoe@example.org', '2024-02-01T10:00:00Z'),
          member(3, 'Émile Zola', 'emile@example.fr', '2023-12-01T10:00:00Z', { state: 'deactivated' }),
          ...Array.from({ length: 22 }, (_, i) =>
            member(100 + i, `Pat Number${String(i).padStart(2, '0')}`, `pat${i}@example.net`, '2025-01-01T10:00:00Z'),
          ),
        ],
      });
      const { context, page, errors } = await newPage(browser);
      await signInBrowser(page, server, '/console/members');
      // 26 members (Grace from the test before), 20 a page.
      await page.getByText(/1–20 of 26 \(page 1 of 2\)/).waitFor();
      await page.getByRole('button', { name: 'Next' }).click();
      await page.getByText(/21–26 of 26 \(page 2 of 2\)/).waitFor();

      await page.getByLabel('Name or email').fill('LOVELACE');
      await page.getByRole('button', { name: 'Search' }).click();
      await page.getByText(/1–1 of 1 \(page 1 of 1\)/).waitFor();
      await page.getByRole('cell', { name: 'Ada Lovelace', exact: true }).waitFor();
      await page.getByLabel('Name or email').fill('zoe');
      await page.keyboard.press('Enter');
      await page.getByRole('cell', { name: 'Zoë Ålander', exact: true }).waitFor();
      await page.getByLabel('Name or email').fill('@example.fr');
      await page.keyboard.press('Enter');
      await page.getByRole('cell', { name: 'Émile Zola', exact: true }).waitFor();
      await page.getByLabel('Name or email').fill('nobody-by-that-name');
      await page.keyboard.press('Enter');
      await page.getByText('No member matches this search.').waitFor();

      await page.getByLabel('Name or email').fill('');
      await page.keyboard.press('Enter');
      await page.getByLabel('Status').selectOption('deactivated');
      await page.getByText(/1–1 of 1/).waitFor();
      assert.deepEqual(await page.locator('tbody td[data-label="Name"]').allInnerTexts(), ['Émile Zola']);
      await page.getByLabel('Status').selectOption('active');
      await page.getByText(/1–20 of 25/).waitFor();
      assert.deepEqual((await page.locator('tbody td[data-label="Name"]').allInnerTexts()).slice(0, 2), ['Ada Lovelace', 'Grace Hopper']);
      await page.getByLabel('Sort by').selectOption('joined_at');
      await page.locator('tbody td[data-label="Name"]').first().getByText('Zoë Ålander').waitFor();
      await page.getByLabel('Sort by').selectOption('-name');
      // Zoë heads both orders: wait for the row that differs (the second: Ada by join date, Pat Number21 by name descending).
      await page.locator('tbody td[data-label="Name"]').first().getByText('Zoë Ålander').waitFor();
      await page.locator('tbody td[data-label="Name"]').nth(1).getByText('Pat Number21', { exact: true }).waitFor();
      assert.deepEqual(await seriousViolations(page), []);
      assert.deepEqual(errors, []);
      await context.close();
    });

    it('deactivates a member after asking (cancel changes nothing); a member linked to chat is deactivated in the workspace', async () => {
      const { context, page, errors } = await newPage(browser);
      await signInBrowser(page, server, '/console/members');
      await page.getByLabel('Name or email').fill('ada@example.com');
      await page.keyboard.press('Enter');
      await page.getByText(/1–1 of 1/).waitFor();
      // By keyboard: Enter on the row's button asks, Escape answers no.
      await page.getByRole('button', { name: 'Deactivate Ada Lovelace' }).focus();
      await page.keyboard.press('Enter');
      const dialog = page.getByRole('dialog', { name: 'Deactivate this member?' });
      await dialog.waitFor();
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'hidden' });
      await page.getByRole('button', { name: 'Deactivate Ada Lovelace' }).click();
      await dialog.waitFor();
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'hidden' });
      const ada = async () => (await get<Member>('/admin/v0/members?q=ada%40example.com'))[0];
      assert.equal((await ada())?.is_deactivated, false, 'cancel changes nothing');
      await page.getByRole('button', { name: 'Deactivate Ada Lovelace' }).click();
      await dialog.getByRole('button', { name: 'Deactivate member' }).click();
      await page.getByText('Deactivated Ada Lovelace.').waitFor();
      await page.getByRole('cell', { name: 'Deactivated', exact: true }).waitFor();
      assert.equal((await ada())?.is_deactivated, true);
      assert.equal(await page.getByRole('button', { name: 'Deactivate Ada Lovelace' }).count(), 0);
      assert.deepEqual(errors, []);
      await context.close();
    });

    it('adds a member linked to chat to a group chosen from the list; says why a member without a chat account cannot be', async () => {
      await importInto(server.t, server.community.id, {
        profiles: [{ profile_id: profileId(1), email: 'linus@example.com', chat_user_id: 'U0LINUS' }],
        groups: [
          { id: 'grp-design', name: 'Design', member_profile_ids: [] },
          { id: 'grp-hardware', name: 'Hardware', member_profile_ids: [] },
        ],
        members: [member(50, 'Linus Linked', 'linus@example.com', '2024-07-01T10:00:00Z', { chat_profile_id: profileId(1) })],
      });
      const { context, page, errors } = await newPage(browser, 360);
      await signInBrowser(page, server, '/console/members');
      await page.getByLabel('Name or email').fill('linus');
      await page.keyboard.press('Enter');
      await page.getByText(/1–1 of 1/).waitFor();
      // At 360 px the table is a list of labelled lines.
      await page.locator('td[data-label="Chat"]').getByText('Linked', { exact: true }).waitFor();
      assert.ok((await page.evaluate<number>('document.documentElement.scrollWidth')) <= 360, 'fits 360 px');
      await page.getByRole('button', { name: 'Add Linus Linked to a group' }).click();
      const form = page.getByRole('form', { name: 'Add Linus Linked to a group' });
      await form.getByRole('button', { name: 'Add to group' }).click();
      await page.getByText('Choose a group.').waitFor();
      await form.getByLabel('Group').selectOption({ label: 'Hardware (0 members)' });
      await form.getByRole('button', { name: 'Add to group' }).click();
      await page.getByText('Added Linus Linked to Hardware.').waitFor();
      const groups = await get<Group>('/admin/v0/groups');
      assert.deepEqual(
        groups.map((g) => [g.name, g.member_count]),
        [
          ['Design', 0],
          ['Hardware', 1],
        ],
      );
      assert.ok((await page.evaluate<number>('document.documentElement.scrollWidth')) <= 360, 'fits 360 px');
      assert.deepEqual(await seriousViolations(page), []);

      await page.getByLabel('Name or email').fill('grace');
      await page.keyboard.press('Enter');
      await page.locator('td[data-label="Chat"]').getByText('Not linked', { exact: true }).waitFor();
      await page.getByRole('button', { name: 'Add Grace Hopper to a group' }).click();
      await page.getByText(/Grace Hopper has no chat account linked yet, so cannot be added to a group/).waitFor();
      assert.equal(await page.getByLabel('Group', { exact: true }).count(), 0);
      assert.deepEqual(errors, []);
      await context.close();
    });

    it('renders community data as text: a member named with markup shows its characters and runs nothing', async () => {
      const name = '<img src=x onerror=alert(1)>';
      const made = await server.t.request({
        method: 'POST',
        url: '/admin/v0/members',
        headers: server.community.auth,
        payload: { email: 'markup@example.com', full_name: name },
      });
      assert.equal(made.statusCode, 201, made.body);
      const { context, page, errors } = await newPage(browser);
      let dialogs = 0;
      page.on('dialog', (dialog) => {
        dialogs += 1;
        void dialog.dismiss();
      });
      const fetchedX: string[] = [];
      page.on('request', (request) => {
        if (/\/x$/.test(new URL(request.url()).pathname)) fetchedX.push(request.url());
      });
      await signInBrowser(page, server, '/console/members');
      await page.getByLabel('Name or email').fill('markup@');
      await page.keyboard.press('Enter');
      const cell = page.getByRole('cell', { name, exact: true });
      await cell.waitFor();
      assert.equal(await cell.innerText(), name);
      assert.equal(await page.locator('main img').count(), 0);
      await page.getByRole('button', { name: `Add ${name} to a group` }).click();
      await page.getByRole('heading', { name: `Add ${name} to a group` }).waitFor();
      await page.getByRole('button', { name: `Deactivate ${name}` }).click();
      await page.getByRole('dialog').getByText(name, { exact: false }).waitFor();
      assert.equal(await page.locator('img').count(), 0);
      await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
      assert.equal(dialogs, 0, 'no script ran');
      assert.deepEqual(fetchedX, [], 'nothing asked for x');
      assert.deepEqual(errors, []);
      await context.close();
    });
  });
}
