// The console's browser tests: a real server on a real port, Debian's chromium driven by
// playwright-core, and the one place that signs the browser in (signInBrowser).
import { existsSync } from 'node:fs';
import { AxeBuilder } from '@axe-core/playwright';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import type { Engine } from '../../src/db/database.js';
import { ensureBuilt } from '../http/server-processes.js';
import { parseJsonOutput, runCli } from './cli.js';
import { ensureConsoleBuilt } from './console-kit.js';
import { type HarnessOptions, startTestApp, type TestApp } from './harness.js';

export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Why the browser tests do not run here, or false when they do. */
export const browserSkipReason: string | false = existsSync(chromiumPath)
  ? false
  : `Console browser tests skipped: ${chromiumPath} is missing (apt-get install -y chromium, or set CHROMIUM_PATH, then npm test)`;

const launchArgs = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath, args: launchArgs, headless: true });
}

export type Community = Awaited<ReturnType<TestApp['community']>>;

/** A test app listening on a free loopback port, its base URL, and a community with a key. */
export interface ConsoleServer {
  t: TestApp;
  baseUrl: string;
  community: Community;
  stop: () => Promise<void>;
}

/** Builds the console if needed, then the app on a fresh database of the engine, listening for real. */
export async function startConsoleServer(
  engine: Engine,
  communityName = 'Riverside Makers',
  options: HarnessOptions = {},
): Promise<ConsoleServer> {
  ensureConsoleBuilt();
  const t = await startTestApp(engine, options);
  // The browser runs on the wall clock: the server does too, so "upcoming" means the same to both.
  t.clock.set(Date.now());
  const baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
  const community = await t.community('enterprise', communityName);
  return {
    t,
    baseUrl,
    community,
    async stop() {
      await t.app.close();
      await t.testDb.drop();
    },
  };
}

/**
 * Signs the page in as the community. PHASE 2: replace the body with the real link once the
 * console-signin branch is merged (run `console link --community <id>` through test/support/cli.ts,
 * or its command, and `page.goto(url)`); every test signs in through this one function.
 * Until then it stores a session for the harness's key the way the sign-in page stores it.
 */
export async function signInBrowser(
  page: Page,
  server: ConsoleServer,
  path = '/console/',
  as: { key: string; keyId: string } = server.community,
): Promise<void> {
  const session = {
    key: as.key,
    key_id: as.keyId,
    expires_at: new Date(Date.now() + 12 * 3600_000).toISOString(),
    community: { id: server.community.id, name: 'Riverside Makers', plan: 'enterprise' },
  };
  await page.goto(`${server.baseUrl}/console/`);
  // A string: the root's tsconfig has no DOM library.
  await page.evaluate(`sessionStorage.setItem('community-admin.console.session', ${JSON.stringify(JSON.stringify(session))})`);
  await page.goto(`${server.baseUrl}${path}`);
  await page.locator('nav[aria-label="Console"]').waitFor();
}

/** A fresh context (its own sessionStorage) and page, with the page's errors collected. */
export async function newPage(
  browser: Browser,
  width = 1280,
  timezoneId?: string,
): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport: { width, height: 900 }, ...(timezoneId ? { timezoneId } : {}) });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console: ${message.text()}`);
  });
  return { context, page, errors };
}

/** Axe's violations of impact serious or critical on the page as it is, as readable lines. */
/**
 * Resolves once no part of the page is loading. Several parts load at once (the Overview's), so it
 * waits for each in turn; a string predicate would be refused by the console's CSP (no unsafe-eval).
 */
export async function allLoaded(page: Page): Promise<void> {
  const loading = page.locator('.state-loading');
  while ((await loading.count()) > 0) await loading.first().waitFor({ state: 'detached' });
}

export async function seriousViolations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).analyze();
  return result.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) =>
        `${violation.impact} ${violation.id}: ${violation.help} (${violation.nodes.map((node) => node.target.join(' ')).join('; ')})`,
    );
}

// ---- Sign-in with a real console link (console-pages-b) ----

/** A one-time console link for the server's community, made by the real CLI against the server's database. */
export async function consoleLink(server: ConsoleServer, expires = '15m'): Promise<{ url: string; expires_at: string }> {
  ensureBuilt();
  const result = await runCli(['console', 'link', '--community', server.community.id, '--expires', expires, '--json'], {
    ...server.t.testDb.env,
    PUBLIC_BASE_URL: server.baseUrl,
  });
  if (result.code !== 0) throw new Error(`console link failed: ${result.stderr}`);
  return parseJsonOutput<{ url: string; expires_at: string }>(result);
}

/**
 * Signs the page in as a person would: `community-admin console link` (the CLI, on the server's
 * database) and the URL opened; then, when `path` is given, goes there. Answers the link's URL.
 */
export async function signInWithLink(page: Page, server: ConsoleServer, path?: string): Promise<string> {
  const { url } = await consoleLink(server);
  await page.goto(url);
  await page.locator('nav[aria-label="Console"]').waitFor();
  if (path) {
    await page.goto(`${server.baseUrl}${path}`);
    await page.locator('nav[aria-label="Console"]').waitFor();
  }
  return url;
}
