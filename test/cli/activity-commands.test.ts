import assert from 'node:assert/strict';
import { userInfo } from 'node:os';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { parseJsonOutput, runCli } from '../support/cli.js';
import { createTestDatabase, engines, type TestDatabase } from '../support/harness.js';

interface Activity {
  id: string;
  occurred_at: string;
  action: string;
  actor: { type: string; id: string | null; label: string | null };
  target: { type: string; id: string | null; name: string | null };
  context: unknown;
  changes: Record<string, [unknown, unknown]> | null;
  hash: string;
}

for (const { engine, skip } of engines) {
  describe(`community-admin activity list, export, verify; the CLI's changes recorded as cli [${engine}]`, { skip }, () => {
    let testDb: TestDatabase;
    let env: Record<string, string>;
    let communityId = '';
    let keyId = '';
    before(async () => {
      testDb = await createTestDatabase(engine);
      env = testDb.env;
      communityId = parseJsonOutput<{ id: string }>(
        await runCli(['community', 'create', '--name', 'Logged', '--plan', 'enterprise', '--json'], env),
      ).id;
      const created = await runCli(['key', 'create', '--community', communityId, '--label', 'ops', '--json'], env);
      assert.equal(created.code, 0, created.stderr);
      keyId = parseJsonOutput<{ id: string }>(created).id;
      for (const args of [
        ['key', 'set-permissions', keyId, '--permissions', 'feeds:read'],
        ['key', 'rotate', keyId],
        ['key', 'revoke', keyId],
      ]) {
        const result = await runCli(args, env);
        assert.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`);
      }
    });
    after(async () => {
      await testDb?.drop();
    });

    const list = async (...args: string[]) => {
      const result = await runCli(['activity', 'list', '--community', communityId, '--json', ...args], env);
      assert.equal(result.code, 0, result.stderr);
      return parseJsonOutput<Activity[]>(result);
    };

    it('each key command records one record, the actor the CLI with the operating-system user and no request', async () => {
      const records = (await list('--target-id', keyId)).reverse();
      assert.deepEqual(
        records.map((r) => r.action),
        ['api_key.created', 'api_key.permissions_changed', 'api_key.rotated', 'api_key.revoked'],
      );
      for (const record of records) {
        assert.deepEqual(record.actor, { type: 'cli', id: null, label: userInfo().username });
        assert.equal(record.context, null);
      }
      assert.deepEqual(records[1]?.changes, { permissions: ['all', ['feeds:read']] });
      assert.equal((await list('--action', 'api_key.*', '--limit', '2')).length, 2);
    });

    it('records occurred_at to the microsecond (the hosted spelling), in list --json and in the export', async () => {
      const records = await list('--target-id', keyId);
      const spelling = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.(\d{1,6}))?\+00:00$/;
      const fraction = (at: string) => spelling.exec(at)?.[1] ?? '';
      for (const record of records) assert.match(record.occurred_at, spelling);
      // A millisecond instant has at most three digits; four keys' records all ending in 000 µs: one chance in 10^12.
      assert.ok(
        records.some((r) => fraction(r.occurred_at).length > 3),
        records.map((r) => r.occurred_at).join(),
      );
      const jsonl = await runCli(['activity', 'export', '--community', communityId, '--format', 'jsonl'], env);
      const exported = jsonl.stdout
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as Activity);
      for (const record of records)
        assert.equal(exported.find((r) => r.id === record.id)?.occurred_at, record.occurred_at, 'the same spelling in the export');
      const csv = await runCli(['activity', 'export', '--community', communityId, '--format', 'csv'], env);
      for (const record of records) assert.ok(csv.stdout.includes(`${record.id},${record.occurred_at},`), record.id);
    });

    it('a bad filter is a user error naming its option', async () => {
      for (const [option, value] of [
        ['--since', 'yesterday'],
        ['--action', 'nothing.happened'],
        ['--limit', '0'],
      ] as const) {
        const result = await runCli(['activity', 'list', '--community', communityId, option, value], env);
        assert.equal(result.code, 1, option);
        assert.match(result.stderr, new RegExp(option), option);
      }
    });

    it('export writes every record oldest first as JSON Lines or CSV, progress on stderr', async () => {
      const all = await list();
      const jsonl = await runCli(['activity', 'export', '--community', communityId, '--format', 'jsonl'], env);
      assert.equal(jsonl.code, 0, jsonl.stderr);
      const lines = jsonl.stdout.trimEnd().split('\n');
      assert.equal(lines.length, all.length);
      assert.deepEqual(
        lines.map((line) => (JSON.parse(line) as Activity).id),
        all.map((r) => r.id).reverse(),
      );
      assert.match(jsonl.stderr, new RegExp(`activity export: ${all.length}`));
      const csv = await runCli(['activity', 'export', '--community', communityId, '--format', 'csv'], env);
      assert.equal(csv.code, 0, csv.stderr);
      const rows = csv.stdout.trimEnd().split('\r\n');
      assert.equal(
        rows[0],
        'id,occurred_at,action,actor_type,actor_id,actor_label,target_type,target_id,target_name,request_id,ip,user_agent,changes,metadata,hash',
      );
      assert.equal(rows.length, all.length + 1);
      const bad = await runCli(['activity', 'export', '--community', communityId, '--format', 'xml'], env);
      assert.equal(bad.code, 1);
      assert.match(bad.stderr, /--format/);
    });

    it('verify exits 0 on the chain, and 1 naming the first record that does not match once a row is edited', async () => {
      const ok = await runCli(['activity', 'verify', '--community', communityId], env);
      assert.equal(ok.code, 0, ok.stderr);
      assert.match(ok.stdout, /verifies: 4 records/);
      const [, second] = (await list()).reverse();
      await sql`update activities set actor_label = 'someone else' where id = ${second?.id ?? ''}`.execute(testDb.database.db);
      const bad = await runCli(['activity', 'verify', '--community', communityId, '--json'], env);
      assert.equal(bad.code, 1);
      const verdict = parseJsonOutput<{ ok: boolean; problem: { id: string; reason: string } }>(bad);
      assert.equal(verdict.ok, false);
      assert.equal(verdict.problem.id, second?.id);
      const text = await runCli(['activity', 'verify', '--community', communityId], env);
      assert.equal(text.code, 1);
      assert.match(text.stdout, new RegExp(`record ${second?.id}`));
    });

    it('seed records its import.completed as the CLI (the operating-system user), as import does', async () => {
      const seeded = await runCli(['seed', '--community', communityId, '--profiles', '2', '--events', '1', '--posts', '1', '--json'], env);
      assert.equal(seeded.code, 0, seeded.stderr);
      const imports = await list('--action', 'import.completed');
      assert.ok(imports.length > 0);
      for (const record of imports) {
        assert.deepEqual(record.actor, { type: 'cli', id: null, label: userInfo().username });
        assert.equal(record.context, null);
      }
    });
  });
}
