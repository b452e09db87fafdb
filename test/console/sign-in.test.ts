import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import {
  browserSkipReason,
  type ConsoleServer,
  consoleLink,
  launchBrowser,
  newPage,
  seriousViolations,
  signInWithLink,
  startConsoleServer,
} from '../support/browser-kit.js';
import { engines } from '../support/harness.js';

const refusedHeading = 'This sign-in link does not work';

for (const { engine, skip } of engines) {
  describe(`console sign-in with a link [${engine}]`, { skip: browserSkipReason || skip }, () => {
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

    /** The session the page keeps in the tab (a string: the root's tsconfig has no DOM library). */
    const sessionOf = async (page: Page) =>
      JSON.parse(String(await page.evaluate(`sessionStorage.getItem('community-admin.console.session')`))) as {
        key: string;
        key_id: string;
      };
    const withKey = (key: string) =>
      server.t.request({ method: 'GET', url: '/admin/v0/calendar_events', headers: { authorization: `Bearer ${key}` } });

    it('signs in with the link: the token leaves the address bar and the page shows the community; a second use is refused', async () => {
      const { context, page, errors } = await newPage(browser);
      const url = await signInWithLink(page, server);
      assert.match(url, /\/console\/#token=/);
      assert.equal(page.url(), `${server.baseUrl}/console/`, 'no token left in the address bar');
      await page.locator('header').getByText('Riverside Makers').waitFor();
      await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
      assert.equal((await withKey((await sessionOf(page)).key)).statusCode, 200);
      assert.deepEqual(errors, []);
      await context.close();

      const again = await newPage(browser);
      await again.page.goto(url);
      await again.page.getByRole('heading', { level: 1, name: refusedHeading }).waitFor();
      await again.page.getByText('community-admin console link').first().waitFor();
      assert.equal(again.page.url(), `${server.baseUrl}/console/`, 'a refused token leaves the address bar too');
      assert.equal(await again.page.locator('nav[aria-label="Console"]').count(), 0);
      assert.deepEqual(await seriousViolations(again.page), []);
      await again.context.close();
    });

    it('refuses an expired link the same way, saying how to get a new one', async () => {
      const { url } = await consoleLink(server, '2m');
      // The server's clock past the link's expiry (the CLI made it on the system clock, which the server's follows).
      server.t.clock.advance(3 * 60_000);
      try {
        const { context, page } = await newPage(browser);
        await page.goto(url);
        await page.getByRole('heading', { level: 1, name: refusedHeading }).waitFor();
        await page
          .getByRole('alert')
          .getByText(/already used, has expired or is unknown/)
          .waitFor();
        await page.getByText('npx community-admin console link --community <id>').waitFor();
        await context.close();
      } finally {
        server.t.clock.set(Date.now());
      }
    });

    it('signs out by revoking the session key: HTTP with that key answers 401 afterwards', async () => {
      const { context, page, errors } = await newPage(browser, 360);
      await signInWithLink(page, server, '/console/events');
      const session = await sessionOf(page);
      assert.equal((await withKey(session.key)).statusCode, 200);
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
      assert.equal(await page.evaluate(`sessionStorage.getItem('community-admin.console.session')`), null);
      const refused = await withKey(session.key);
      assert.equal(refused.statusCode, 401, refused.body);
      assert.deepEqual(errors, []);
      await context.close();
    });
  });
}
