import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { createClient, unwrap } from '../../clients/typescript/src/index.js';
import { projectRoot } from '../support/cli.js';
import { createTestDatabase, type TestDatabase } from '../support/harness.js';
import { type ListeningApp, listen, newCommunity } from './client-servers.js';

// The README's five lines, run as they are written (only the package name and the address replaced),
// against a real server: they must print the upcoming events and nothing else.

/** The TypeScript block of the README's client section. */
function readmeExample(): string {
  const readme = readFileSync(join(projectRoot, 'README.md'), 'utf8');
  const section = readme.split('## A typed client for TypeScript')[1] ?? '';
  const code = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(code, 'README.md has a ```ts block in "A typed client for TypeScript"');
  return code;
}

describe('the README lists upcoming events with the typescript client', () => {
  let testDb: TestDatabase;
  let server: ListeningApp;
  const dir = mkdtempSync(join(tmpdir(), 'client-readme-'));
  before(async () => {
    testDb = await createTestDatabase('sqlite');
    server = await listen(testDb.database);
  });
  after(async () => {
    await server?.app.close();
    await testDb?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('in five lines that print each upcoming event', async () => {
    const code = readmeExample();
    assert.equal(code.trimEnd().split('\n').length, 5);
    const { key } = await newCommunity(testDb.database);
    const admin = createClient({ baseUrl: server.baseUrl, apiKey: key });
    const at = (days: number) => new Date(Date.now() + days * 24 * 60 * 60 * 1000).toISOString();
    for (const [title, days] of [
      ['Past', -2],
      ['Soon', 1],
      ['Later', 8],
    ] as const) {
      unwrap(await admin.POST('/admin/v0/calendar_events', { body: { title, start_date: at(days), status: 'published' } }));
    }
    const script = join(dir, 'example.mts');
    const clientUrl = pathToFileURL(join(projectRoot, 'clients/typescript/src/index.ts')).href;
    writeFileSync(script, code.replace("'@community-admin/client'", `'${clientUrl}'`).replace('http://127.0.0.1:3000', server.baseUrl));
    // Asynchronously: the server answering the script runs in this process.
    const run = await promisify(execFile)(process.execPath, ['--import', 'tsx', script], {
      cwd: projectRoot,
      env: { PATH: process.env.PATH ?? '', COMMUNITY_ADMIN_KEY: key },
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(run.stderr, '');
    const lines = run.stdout.trimEnd().split('\n');
    assert.deepEqual(
      lines.map((line) => line.split(' ').slice(1).join(' ')),
      ['Soon', 'Later'],
    );
    assert.match(lines[0] ?? '', /^\d{4}-\d{2}-\d{2}T/);
  });
});
