import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ensureBuilt, type ServerProcess, startServerProcess } from '../http/server-processes.js';

/** The banner's lines as they arrive: waits (briefly) for `pattern` in the output. */
async function waitFor(server: ServerProcess, pattern: RegExp): Promise<RegExpExecArray> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const match = pattern.exec(server.output());
    if (match) return match;
    if (Date.now() > deadline) assert.fail(`${pattern} not in the output:\n${server.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const signIn = (server: ServerProcess, token: string) =>
  fetch(`${server.baseUrl}/admin/v0/console/sessions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token }),
  });

describe("the first start's banner: a console link beside the key (SQLite, a real server)", () => {
  const dir = mkdtempSync(join(tmpdir(), 'community-admin-console-banner-'));
  const servers: ServerProcess[] = [];
  before(() => ensureBuilt());
  after(async () => {
    for (const server of servers) await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('prints a one-time console link of the default community, and how to get a new one; a later start prints none', async () => {
    const env = { DATABASE_URL: `sqlite:${join(dir, 'community.db')}` };
    const server = await startServerProcess(env);
    servers.push(server);
    const key = (await waitFor(server, /^ {2}(ca_[A-Za-z0-9_-]+)$/m))[1] as string;
    const [, base, token] = await waitFor(server, /^ {2}(\S+)\/console\/#token=([A-Za-z0-9_-]+)$/m);
    assert.equal(base, server.baseUrl, "the server's own address");
    assert.match(server.output(), /this link signs you in \(it works once, within 15 minutes\)/);
    const [, communityId] = await waitFor(server, /A new link at any time: npx community-admin console link --community (\S+)/);
    assert.ok(server.output().indexOf(key) < server.output().indexOf(token as string), 'the link comes after the key');

    const res = await signIn(server, token as string);
    assert.equal(res.status, 201);
    const session = ((await res.json()) as { data: { key: string; community: { id: string; name: string } } }).data;
    assert.deepEqual(session.community, { id: communityId, name: 'Default community', plan: 'enterprise' });
    const me = await fetch(`${server.baseUrl}/admin/v0/api_key/me`, { headers: { authorization: `Bearer ${session.key}` } });
    assert.equal(me.status, 200);
    const again = await signIn(server, token as string);
    assert.equal(again.status, 401);
    assert.equal(((await again.json()) as { error: { code: string } }).error.code, 'console_link_refused');
    await server.stop();

    const later = await startServerProcess(env);
    servers.push(later);
    assert.doesNotMatch(later.output(), /#token=/);
    await later.stop();
  });

  it('prints no link with CONSOLE=false, and the key all the same', async () => {
    const server = await startServerProcess({ DATABASE_URL: `sqlite:${join(dir, 'off.db')}`, CONSOLE: 'false' });
    servers.push(server);
    await waitFor(server, /^ {2}(ca_[A-Za-z0-9_-]+)$/m);
    await waitFor(server, /curl -H "Authorization: Bearer /);
    assert.doesNotMatch(server.output(), /#token=|console link/);
    await server.stop();
  });
});
