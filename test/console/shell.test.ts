import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { createApiKey } from '../../src/modules/api-keys/api-keys.commands.js';
import { permissions } from '../../src/shared/permissions.js';
import {
  allLoaded,
  browserSkipReason,
  type ConsoleServer,
  launchBrowser,
  newPage,
  seriousViolations,
  signInBrowser,
  startConsoleServer,
} from '../support/browser-kit.js';
import { engines } from '../support/harness.js';

const pageNames = ['Overview', 'Events', 'Members', 'Posts', 'Files', 'Awards', 'API keys', 'Webhooks', 'Slack', 'Activity'];

for (const { engine, skip } of engines) {
  describe(`console shell in a browser [${engine}]`, { skip: browserSkipReason || skip }, () => {
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

    it('the nav landmark links every page by name, and each page has one h1 naming it, with no axe violation of impact serious or critical', async () => {
      const { context, page, errors } = await newPage(browser);
      // Every permission listed by name, as a console session holds them (the API keys page needs api_keys:write).
      const session = await createApiKey(
        { database: server.t.database, clock: server.t.clock, communityId: server.community.id },
        { label: 'Console session', permissions: new Set(permissions) },
      );
      await signInBrowser(page, server, '/console/', { key: session.key, keyId: session.id });
      const nav = page.getByRole('navigation', { name: 'Console' });
      assert.deepEqual(await nav.getByRole('link').allInnerTexts(), pageNames);
      for (const name of pageNames) {
        await nav.getByRole('link', { name, exact: true }).click();
        await page.getByRole('heading', { level: 1, name, exact: true }).waitFor();
        assert.equal(await page.locator('h1').count(), 1, name);
        assert.equal(await nav.getByRole('link', { name, exact: true }).getAttribute('aria-current'), 'page', name);
        await allLoaded(page);
        assert.deepEqual(await seriousViolations(page), [], name);
      }
      // Real paths: reloading a page's address opens that page.
      await page.goto(`${server.baseUrl}/console/webhooks`);
      await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
      assert.deepEqual(errors, [], 'no script error and no Content-Security-Policy violation');
      await context.close();
    });

    it('is usable at 360 px: nothing wider than the screen, every nav link reachable', async () => {
      const { context, page } = await newPage(browser, 360);
      await signInBrowser(page, server);
      for (const path of ['/console/', '/console/events', '/console/posts', '/console/files']) {
        await page.goto(`${server.baseUrl}${path}`);
        await page.locator('h1').waitFor();
        await allLoaded(page);
        const width = await page.evaluate<number>('document.documentElement.scrollWidth');
        assert.ok(width <= 360, `${path} is ${width} px wide`);
        for (const link of await page.getByRole('navigation', { name: 'Console' }).getByRole('link').all())
          assert.ok(await link.isVisible());
      }
      await context.close();
    });

    it('is keyboard navigable with a visible focus: Tab reaches the nav, Enter opens a page', async () => {
      const { context, page } = await newPage(browser);
      await signInBrowser(page, server);
      await page.keyboard.press('Tab'); // skip link
      await page.keyboard.press('Tab'); // sign out
      await page.keyboard.press('Tab'); // Overview
      await page.keyboard.press('Tab'); // Events
      const focused = page.locator(':focus');
      assert.equal(await focused.innerText(), 'Events');
      const outline = await focused.evaluate(
        (el) => (globalThis as unknown as { getComputedStyle: (e: unknown) => { outlineStyle: string } }).getComputedStyle(el).outlineStyle,
      );
      assert.notEqual(outline, 'none');
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { level: 1, name: 'Events' }).waitFor();
      await context.close();
    });

    it('a refused link shows what happened and how to get a new one, and leaves the address bar without the token', async () => {
      const { context, page } = await newPage(browser);
      await page.goto(`${server.baseUrl}/console/#token=not-a-real-token`);
      await page.getByRole('heading', { level: 1, name: 'This sign-in link does not work' }).waitFor();
      assert.match(await page.locator('main').innerText(), /npx community-admin console link --community <id>/);
      assert.match(await page.locator('main').innerText(), /used, has expired, or is unknown/);
      assert.doesNotMatch(page.url(), /token/);
      assert.equal(await page.evaluate<number>('sessionStorage.length'), 0);
      assert.deepEqual(await seriousViolations(page), []);
      await context.close();
    });

    it('a session whose key the server refuses (expired, revoked) ends: back to sign-in, saying so', async () => {
      const { context, page } = await newPage(browser);
      await signInBrowser(page, server);
      await page.evaluate(`(() => {
        const name = 'community-admin.console.session';
        const session = JSON.parse(sessionStorage.getItem(name));
        sessionStorage.setItem(name, JSON.stringify({ ...session, key: session.key.slice(0, -4) + 'xxxx' }));
      })()`);
      await page.goto(`${server.baseUrl}/console/events`);
      await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
      await page.getByText('Your console session has ended').waitFor();
      assert.equal(await page.evaluate<number>('sessionStorage.length'), 0);
      await context.close();
    });

    it('in the dark colour scheme too, no axe violation of impact serious or critical', async () => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: 'dark' });
      const page = await context.newPage();
      await signInBrowser(page, server, '/console/events');
      await allLoaded(page);
      assert.equal(await page.evaluate<boolean>("matchMedia('(prefers-color-scheme: dark)').matches"), true);
      assert.deepEqual(await seriousViolations(page), []);
      await page.getByRole('button', { name: 'New event' }).click();
      assert.deepEqual(await seriousViolations(page), []);
      await context.close();
    });

    it('sign out clears the session from the tab and shows how to sign in again', async () => {
      const { context, page } = await newPage(browser);
      // A key of its own: sign-out revokes the session's key (once DELETE /api_keys/{id} exists), the others' stays.
      const own = await createApiKey(
        { database: server.t.database, clock: server.t.clock, communityId: server.community.id },
        { label: 'console session' },
      );
      await signInBrowser(page, server, '/console/', { key: own.key, keyId: own.id });
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
      assert.equal(await page.evaluate<number>('sessionStorage.length'), 0);
      await page.reload();
      await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
      await context.close();
    });
  });
}
