import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parseJsonOutput, runCli } from '../support/cli.js';
import { createTestDatabase, engines, type TestDatabase } from '../support/harness.js';

for (const { engine, skip } of engines) {
  describe(`community-admin key permissions, expiry, rotation [${engine}]`, { skip }, () => {
    let testDb: TestDatabase;
    let env: Record<string, string>;
    let communityId = '';
    before(async () => {
      testDb = await createTestDatabase(engine);
      env = testDb.env;
      communityId = parseJsonOutput<{ id: string }>(
        await runCli(['community', 'create', '--name', 'Scopes', '--plan', 'enterprise', '--json'], env),
      ).id;
    });
    after(async () => {
      await testDb?.drop();
    });

    it('key create --permissions --expires-in prints exactly {id, key, community_id, permissions, expires_at}; key list shows them', async () => {
      const before = Date.now();
      const created = await runCli(
        ['key', 'create', '--community', communityId, '--permissions', 'feeds:read,calendar_events:read', '--expires-in', '90d', '--json'],
        env,
      );
      assert.equal(created.code, 0, created.stderr);
      const key = parseJsonOutput<{ id: string; key: string; community_id: string; permissions: string[]; expires_at: string }>(created);
      assert.deepEqual(Object.keys(key).sort(), ['community_id', 'expires_at', 'id', 'key', 'permissions']);
      assert.deepEqual(key.permissions, ['calendar_events:read', 'feeds:read']);
      const expiresIn = Date.parse(key.expires_at) - before;
      assert.ok(expiresIn >= 90 * 86_400_000 - 1000 && expiresIn <= 90 * 86_400_000 + 60_000, key.expires_at);
      const listed = parseJsonOutput<{ id: string; permissions: string[]; all_permissions: boolean; expires_at: string | null }[]>(
        await runCli(['key', 'list', '--community', communityId, '--json'], env),
      );
      const row = listed.find((k) => k.id === key.id);
      assert.deepEqual(row?.permissions, ['calendar_events:read', 'feeds:read']);
      assert.equal(row?.all_permissions, false);
      assert.equal(row?.expires_at, key.expires_at);
      const table = await runCli(['key', 'list', '--community', communityId], env);
      assert.match(table.stdout, /calendar_events:read,feeds:read/);
    });

    it('refuses an unknown permission and a malformed duration with exit 1 naming them', async () => {
      const bad = await runCli(['key', 'create', '--community', communityId, '--permissions', 'feeds:write'], env);
      assert.equal(bad.code, 1);
      assert.match(bad.stderr, /Unknown permission "feeds:write"/);
      for (const duration of ['90', '1w', '-1d', '0d', '']) {
        const res = await runCli(['key', 'create', '--community', communityId, '--expires-in', duration], env);
        assert.equal(res.code, 1, duration);
        assert.match(res.stderr, /--expires-in must be a duration/);
      }
      for (const duration of ['30s', '15m', '24h', '90d']) {
        const res = await runCli(['key', 'create', '--community', communityId, '--expires-in', duration, '--json'], env);
        assert.equal(res.code, 0, `${duration}: ${res.stderr}`);
      }
    });

    it('key rotate prints {id, key, previous_valid_until}; --grace sets it (24h by default); set-permissions replaces them', async () => {
      const key = parseJsonOutput<{ id: string; key: string }>(
        await runCli(['key', 'create', '--community', communityId, '--label', 'rotating', '--json'], env),
      );
      const before = Date.now();
      const rotated = await runCli(['key', 'rotate', key.id, '--grace', '15m', '--json'], env);
      assert.equal(rotated.code, 0, rotated.stderr);
      const body = parseJsonOutput<{ id: string; key: string; previous_valid_until: string }>(rotated);
      assert.deepEqual(Object.keys(body).sort(), ['id', 'key', 'previous_valid_until']);
      assert.equal(body.id, key.id);
      assert.notEqual(body.key, key.key);
      const grace = Date.parse(body.previous_valid_until) - before;
      assert.ok(grace >= 15 * 60_000 - 1000 && grace <= 15 * 60_000 + 60_000, body.previous_valid_until);
      const byDefault = parseJsonOutput<{ previous_valid_until: string }>(await runCli(['key', 'rotate', key.id, '--json'], env));
      assert.ok(Date.parse(byDefault.previous_valid_until) - Date.now() > 23 * 3_600_000);

      const set = await runCli(['key', 'set-permissions', key.id, '--permissions', 'members:read', '--json'], env);
      assert.equal(set.code, 0, set.stderr);
      assert.deepEqual(parseJsonOutput<{ permissions: string[] }>(set).permissions, ['members:read']);
      const unknownKey = await runCli(['key', 'rotate', '00000000-0000-4000-8000-000000000000'], env);
      assert.equal(unknownKey.code, 1);
      assert.match(unknownKey.stderr, /No API key/);
      await runCli(['key', 'revoke', key.id], env);
      const revoked = await runCli(['key', 'rotate', key.id], env);
      assert.equal(revoked.code, 1);
      assert.match(revoked.stderr, /revoked/);
    });

    it('all never implies api_keys:write: a key without --permissions lacks it, "all,api_keys:write" holds both; the help says so', async () => {
      const plain = parseJsonOutput<{ permissions: string[] }>(await runCli(['key', 'create', '--community', communityId, '--json'], env));
      assert.equal(plain.permissions.includes('api_keys:write'), false);
      assert.equal(plain.permissions.includes('groups:read'), true);
      const created = await runCli(['key', 'create', '--community', communityId, '--permissions', 'all,api_keys:write', '--json'], env);
      assert.equal(created.code, 0, created.stderr);
      const manager = parseJsonOutput<{ id: string; permissions: string[] }>(created);
      assert.equal(manager.permissions.includes('api_keys:write'), true);
      const listed = parseJsonOutput<{ id: string; all_permissions: boolean; permissions: string[] }[]>(
        await runCli(['key', 'list', '--community', communityId, '--json'], env),
      );
      const row = listed.find((k) => k.id === manager.id);
      assert.deepEqual([row?.all_permissions, row?.permissions.includes('api_keys:write')], [true, true]);
      const set = await runCli(['key', 'set-permissions', manager.id, '--permissions', 'all', '--json'], env);
      assert.equal(parseJsonOutput<{ permissions: string[] }>(set).permissions.includes('api_keys:write'), false);
      const help = await runCli(['key', 'create', '--help'], env);
      assert.match(help.stdout.replace(/\s+/g, ' '), /except api_keys:write, which a key holds only when named/);
    });
  });
}
