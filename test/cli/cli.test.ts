import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseJsonOutput, runCli } from '../support/cli.js';
import { createTestDatabase, engines, type TestDatabase } from '../support/harness.js';

for (const { engine, skip } of engines) {
  describe(`community-admin CLI [${engine}]`, { skip }, () => {
    let testDb: TestDatabase;
    let env: Record<string, string>;
    before(async () => {
      testDb = await createTestDatabase(engine);
      env = testDb.env;
    });
    after(async () => {
      await testDb?.drop();
    });

    it('migrate --json prints the applied list (empty when up to date)', async () => {
      const result = await runCli(['migrate', '--json'], env);
      assert.equal(result.code, 0, result.stderr);
      assert.deepEqual(parseJsonOutput(result), { applied: [] });
    });

    it('community create / list / set-plan print exactly the documented JSON', async () => {
      const created = await runCli(['community', 'create', '--name', 'Acme', '--plan', 'growth', '--json'], env);
      assert.equal(created.code, 0, created.stderr);
      const community = parseJsonOutput<{ id: string; name: string; plan: string }>(created);
      assert.deepEqual(Object.keys(community).sort(), ['id', 'name', 'plan']);
      assert.equal(community.name, 'Acme');
      assert.equal(community.plan, 'growth');

      const listed = parseJsonOutput<{ id: string }[]>(await runCli(['community', 'list', '--json'], env));
      assert.ok(listed.some((c) => c.id === community.id));

      const changed = await runCli(['community', 'set-plan', community.id, 'enterprise', '--json'], env);
      assert.equal(changed.code, 0, changed.stderr);
      assert.deepEqual(parseJsonOutput(changed), { id: community.id, name: 'Acme', plan: 'enterprise' });
    });

    it('exits 1 with a message on stderr for a user error, 2 for a usage error', async () => {
      const badPlan = await runCli(['community', 'create', '--name', 'X', '--plan', 'platinum', '--json'], env);
      assert.equal(badPlan.code, 1);
      assert.equal(badPlan.stdout, '');
      assert.match(badPlan.stderr, /plan/);
      const usage = await runCli(['community', 'create', '--json'], env);
      assert.equal(usage.code, 2);
      const unknown = await runCli(['frobnicate'], env);
      assert.equal(unknown.code, 2);
      const noCommunity = await runCli(['key', 'create', '--community', 'nope', '--json'], env);
      assert.equal(noCommunity.code, 1);
    });

    it('key create prints the secret once; key list never shows it; key revoke revokes', async () => {
      const community = parseJsonOutput<{ id: string }>(
        await runCli(['community', 'create', '--name', 'Keys', '--plan', 'free', '--json'], env),
      );
      const created = await runCli(['key', 'create', '--community', community.id, '--label', 'ci', '--json'], env);
      assert.equal(created.code, 0, created.stderr);
      const key = parseJsonOutput<{ id: string; key: string; community_id: string; permissions: string[]; expires_at: null }>(created);
      assert.deepEqual(Object.keys(key).sort(), ['community_id', 'expires_at', 'id', 'key', 'permissions']);
      assert.equal(key.expires_at, null);
      assert.ok(key.permissions.includes('members:write') && key.permissions.includes('calendar_events:read'));
      assert.equal(key.community_id, community.id);
      assert.ok(key.key.length >= 22);

      const listed = await runCli(['key', 'list', '--community', community.id, '--json'], env);
      assert.ok(!listed.stdout.includes(key.key));
      const keys = parseJsonOutput<{ id: string; label: string; created_at: string; revoked_at: string | null }[]>(listed);
      assert.deepEqual(Object.keys(keys[0] ?? {}).sort(), [
        'all_permissions',
        'created_at',
        'expires_at',
        'id',
        'label',
        'permissions',
        'revoked_at',
      ]);
      assert.equal(keys[0]?.label, 'ci');
      assert.equal(keys[0]?.revoked_at, null);

      const revoked = await runCli(['key', 'revoke', key.id, '--json'], env);
      assert.equal(revoked.code, 0, revoked.stderr);
      const body = parseJsonOutput<{ id: string; revoked_at: string }>(revoked);
      assert.equal(body.id, key.id);
      assert.ok(!Number.isNaN(Date.parse(body.revoked_at)));
      const after = parseJsonOutput<{ revoked_at: string | null }[]>(
        await runCli(['key', 'list', '--community', community.id, '--json'], env),
      );
      assert.equal(after[0]?.revoked_at, body.revoked_at);
    });

    it('import loads profiles all or nothing and prints counts; a bad record names section, index and field', async () => {
      const community = parseJsonOutput<{ id: string }>(
        await runCli(['community', 'create', '--name', 'Imp', '--plan', 'free', '--json'], env),
      );
      const file = join(tmpdir(), `import-${Date.now()}-${Math.random()}.json`);
      const profile = (n: number) => ({
        profile_id: `00000000-0000-4000-8000-00000000000${n}`,
        email: `p${n}@example.com`,
        first_name: `P${n}`,
      });
      writeFileSync(file, JSON.stringify({ profiles: [profile(1), profile(2)] }));
      const ok = await runCli(['import', file, '--community', community.id, '--json'], env);
      assert.equal(ok.code, 0, ok.stderr);
      assert.deepEqual(parseJsonOutput(ok), { profiles: 2 });
      const again = await runCli(['import', file, '--community', community.id, '--json'], env);
      assert.deepEqual(parseJsonOutput(again), { profiles: 2 });

      writeFileSync(file, JSON.stringify({ profiles: [profile(3), { ...profile(4), shoe_size: 44 }] }));
      const bad = await runCli(['import', file, '--community', community.id, '--json'], env);
      assert.equal(bad.code, 1);
      assert.equal(bad.stdout, '');
      assert.match(bad.stderr, /profiles\[1\]\.shoe_size/);

      writeFileSync(file, JSON.stringify({ profiles: [profile(5)], widgets: [] }));
      const unknownSection = await runCli(['import', file, '--community', community.id, '--json'], env);
      assert.equal(unknownSection.code, 1);
      assert.match(unknownSection.stderr, /widgets/);
    });
  });
}

describe('community-admin configuration', () => {
  it('stops with one line naming the variable when configuration is invalid', async () => {
    const result = await runCli(['community', 'list', '--json'], { DATABASE_URL: 'mysql://nope', PORT: '3000' });
    assert.equal(result.code, 1);
    assert.match(result.stderr.trim(), /^Invalid configuration: DATABASE_URL/);
    assert.equal(result.stderr.trim().split('\n').length, 1);
    const port = await runCli(['community', 'list'], { PORT: 'eighty', DATABASE_URL: `sqlite:${join(tmpdir(), 'unused.db')}` });
    assert.equal(port.code, 1);
    assert.match(port.stderr, /PORT/);
    const unused = `sqlite:${join(tmpdir(), 'unused.db')}`;
    for (const env of [
      { METRICS_TOKEN: 'short', DATABASE_URL: unused },
      { METRICS_PORT: '3000', PORT: '3000', DATABASE_URL: unused },
      { LOG_FORMAT: 'xml', DATABASE_URL: unused },
    ] as Record<string, string>[]) {
      const refused = await runCli(['community', 'list'], env);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr.trim(), new RegExp(`^Invalid configuration: ${Object.keys(env)[0]}=`));
    }
  });
});
