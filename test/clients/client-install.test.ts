import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { createClient, unwrap } from '../../clients/typescript/src/index.js';
import { projectRoot } from '../support/cli.js';
import { createTestDatabase, type TestDatabase } from '../support/harness.js';
import { type ListeningApp, listen, newCommunity } from './client-servers.js';

// Issue 37, "The typed client, installable": the folder packed as npm packs it (its prepack builds
// dist/), installed into a project of its own, the README's example type-checked there with strict
// tsc against the installed package's types, compiled, and run with plain node against a server.

const run = promisify(execFile);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const clientDir = join(projectRoot, 'clients', 'typescript');
const tsc = join(projectRoot, 'node_modules', 'typescript', 'bin', 'tsc');

function readmeExample(): string {
  const readme = readFileSync(join(projectRoot, 'README.md'), 'utf8');
  const code = /```ts\n([\s\S]*?)```/.exec(readme.split('## A typed client for TypeScript')[1] ?? '')?.[1];
  assert.ok(code);
  return code;
}

describe('the typescript client installed by path into another project', () => {
  let testDb: TestDatabase;
  let server: ListeningApp;
  const dir = mkdtempSync(join(tmpdir(), 'client-install-'));
  before(async () => {
    testDb = await createTestDatabase('sqlite');
    server = await listen(testDb.database);
  });
  after(async () => {
    await server?.app.close();
    await testDb?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('type-checks the README example with strict tsc and runs it with node', { timeout: 240_000 }, async () => {
    const env = { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' };
    await run(npm, ['pack', '--pack-destination', dir], { cwd: clientDir, env, timeout: 120_000 });
    const tarball = readdirSync(dir).find((name) => name.endsWith('.tgz'));
    assert.ok(tarball, 'npm pack made a tarball');
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'scratch', private: true, type: 'module' }));
    await run(npm, ['install', '--prefer-offline', `./${tarball}`], { cwd: dir, env, timeout: 120_000 });

    const { key } = await newCommunity(testDb.database);
    const admin = createClient({ baseUrl: server.baseUrl, apiKey: key });
    const soon = new Date(Date.now() + 86_400_000).toISOString();
    unwrap(await admin.POST('/admin/v0/calendar_events', { body: { title: 'Installed', start_date: soon, status: 'published' } }));

    writeFileSync(join(dir, 'example.mts'), readmeExample().replace('http://127.0.0.1:3000', server.baseUrl));
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          lib: ['ES2023', 'DOM'],
          types: ['node'],
          typeRoots: [join(projectRoot, 'node_modules', '@types')],
          outDir: 'out',
        },
        files: ['example.mts'],
      }),
    );
    await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: dir, timeout: 120_000 }).catch((error: { stdout?: string }) => {
      assert.fail(`strict tsc refused the README example against the installed package:\n${error.stdout ?? error}`);
    });
    // Plain node, no tsx, from the scratch project: only the installed package can be resolved.
    const output = await run(process.execPath, [join(dir, 'out', 'example.mjs')], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', COMMUNITY_ADMIN_KEY: key },
      timeout: 60_000,
    });
    assert.equal(output.stderr, '');
    assert.match(output.stdout, /^\d{4}-\d{2}-\d{2}T\S+ Installed\n$/);
  });
});
