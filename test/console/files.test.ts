import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
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
import { engines } from '../support/harness.js';

for (const { engine, skip } of engines) {
  describe(`console Files page [${engine}]`, { skip: browserSkipReason || skip }, () => {
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

    it('uploads a file from the page (with a progress bar), shows its public URL with a copy button, and the URL downloads the same bytes', async () => {
      const { context, page, errors } = await newPage(browser);
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.baseUrl });
      await signInBrowser(page, server, '/console/files');
      await page.getByText('No file has been uploaded yet.').waitFor();
      await page.getByRole('button', { name: 'Upload', exact: true }).click();
      await page.getByText('Choose a file to upload.').waitFor();

      // Large enough that the upload reports progress before it ends.
      const bytes = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(2 * 1024 * 1024)]);
      await page
        .getByLabel('File', { exact: true })
        .setInputFiles({ name: 'minutes 2026.pdf', mimeType: 'application/pdf', buffer: bytes });
      await page.getByLabel('Description (alt text, optional)').fill('Minutes of the general meeting');
      // The bar lives only while the upload runs, which on loopback can be shorter than a locator's
      // polling interval: the page itself notes that it was shown, so the check does not race it.
      await page.evaluate(
        "window.sawProgress = false; new MutationObserver(() => { if (document.querySelector('progress')) window.sawProgress = true; }).observe(document.body, { childList: true, subtree: true });",
      );
      await page.getByRole('button', { name: 'Upload', exact: true }).click();
      await page.getByRole('heading', { name: 'Uploaded minutes 2026.pdf' }).waitFor();
      assert.equal(await page.evaluate<boolean>('window.sawProgress'), true, 'the progress bar was shown during the upload');
      const url = await page.locator('a.file-url').getAttribute('href');
      assert.ok(url?.startsWith(`${server.baseUrl}/files/`), String(url));

      await page.getByRole('button', { name: "Copy the file's URL" }).click();
      await page.getByText('Copied', { exact: true }).waitFor();
      assert.equal(await page.evaluate<string>('navigator.clipboard.readText()'), url);

      const download = await fetch(String(url));
      assert.equal(download.status, 200);
      assert.deepEqual(Buffer.from(await download.arrayBuffer()), bytes);
      assert.deepEqual(errors, []);
      await context.close();
    });

    it('lists the files (name, type, size, date with UTC on hover) with the API’s totals, each public URL with a copy button', async () => {
      const { context, page, errors } = await newPage(browser, 360);
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.baseUrl });
      await signInBrowser(page, server, '/console/files');
      // At 360 px the table is a list of labelled lines.
      const row = page.locator('tr', { hasText: 'minutes 2026.pdf' });
      await row.waitFor();
      assert.equal(await row.locator('td[data-label="Type"]').innerText(), 'application/pdf');
      assert.equal(await row.locator('td[data-label="Size"]').innerText(), '2.0\u00a0MB', 'a no-break space between number and unit');
      assert.match(String(await row.locator('td[data-label="Uploaded"] time').getAttribute('title')), / UTC$/);
      await page.getByText(/1–1 of 1 \(page 1 of 1\)/).waitFor();
      const link = row.locator('td[data-label="Public URL"] a');
      const url = await link.getAttribute('href');
      assert.equal(await link.innerText(), url, 'the URL is shown');
      assert.ok(url?.startsWith(`${server.baseUrl}/files/`), String(url));
      await row.getByRole('button', { name: 'Copy the URL of minutes 2026.pdf' }).click();
      await row.getByText('Copied', { exact: true }).waitFor();
      assert.equal(await page.evaluate<string>('navigator.clipboard.readText()'), url);
      assert.equal((await fetch(String(url))).status, 200);
      assert.ok((await page.evaluate<number>('document.documentElement.scrollWidth')) <= 360, 'fits 360 px');
      assert.deepEqual(await seriousViolations(page), []);
      assert.deepEqual(errors, []);
      await context.close();
    });

    it('shows the server’s message and hint when the upload is refused', async () => {
      const { context, page } = await newPage(browser);
      await signInBrowser(page, server, '/console/files');
      await page.getByLabel('File', { exact: true }).setInputFiles({ name: 'empty.txt', mimeType: 'text/plain', buffer: Buffer.alloc(0) });
      await page.getByRole('button', { name: 'Upload', exact: true }).click();
      const alert = page.getByRole('alert');
      await alert.waitFor();
      assert.ok((await alert.locator('.error-message').innerText()).length > 0);
      assert.ok((await alert.locator('.error-hint').innerText()).length > 0);
      await context.close();
    });
  });
}
