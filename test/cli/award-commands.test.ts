import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createCommunity } from '../../src/modules/communities/communities.commands.js';
import { systemClock } from '../../src/shared/clock.js';
import { parseJsonOutput, runCli } from '../support/cli.js';
import { createTestDatabase, engines, type TestDatabase } from '../support/harness.js';

interface AwardLine {
  id: string;
  name: string;
  description: string | null;
  emoji: string | null;
  assigned_count: number;
  created_at: string;
}

for (const { engine, skip } of engines) {
  describe(`community-admin award commands [${engine}]`, { skip }, () => {
    let testDb: TestDatabase;
    let communityId = '';
    const dir = mkdtempSync(join(tmpdir(), 'awards-'));
    before(async () => {
      testDb = await createTestDatabase(engine);
      communityId = (await createCommunity({ database: testDb.database, clock: systemClock }, { name: 'Awards', plan: 'free' })).id;
    });
    after(async () => {
      rmSync(dir, { recursive: true, force: true });
      await testDb?.drop();
    });

    it('create --json prints the award; list shows it with its holder count; the import fills holders', async () => {
      const created = await runCli(
        [
          'award',
          'create',
          '--community',
          communityId,
          '--name',
          'Top helper',
          '--description',
          'Most answers',
          '--emoji',
          ':trophy:',
          '--json',
        ],
        testDb.env,
      );
      assert.equal(created.code, 0, created.stderr);
      const award = parseJsonOutput<AwardLine>(created);
      assert.deepEqual(
        { ...award, id: '', created_at: '' },
        { id: '', name: 'Top helper', description: 'Most answers', emoji: ':trophy:', assigned_count: 0, created_at: '' },
      );
      const plain = await runCli(['award', 'create', '--community', communityId, '--name', 'Plain'], testDb.env);
      assert.equal(plain.code, 0, plain.stderr);
      assert.match(plain.stdout, /Created award [0-9a-f-]{36} "Plain"\./);

      const file = join(dir, 'holders.json');
      writeFileSync(
        file,
        JSON.stringify({
          profiles: [{ profile_id: 'a0000000-0000-4000-8000-000000000001', email: 'ada@example.com', chat_user_id: 'U1' }],
          awards: [
            {
              id: award.id,
              name: 'Top helper',
              description: 'Most answers',
              emoji: ':trophy:',
              created_at: award.created_at,
              assignments: [{ profile_id: 'a0000000-0000-4000-8000-000000000001' }],
            },
          ],
        }),
      );
      const imported = await runCli(['import', file, '--community', communityId], testDb.env);
      assert.equal(imported.code, 0, imported.stderr);

      const listed = await runCli(['award', 'list', '--community', communityId, '--json'], testDb.env);
      assert.equal(listed.code, 0, listed.stderr);
      const awards = parseJsonOutput<AwardLine[]>(listed);
      assert.deepEqual(
        awards.map((a) => [a.name, a.assigned_count]),
        [
          ['Top helper', 1],
          ['Plain', 0],
        ],
      );
      const table = await runCli(['award', 'list', '--community', communityId], testDb.env);
      assert.match(table.stdout, /Top helper\s+:trophy:\s+1/);
    });

    it('refuses a duplicate name, a bad emoji, an unknown community, and an import naming a missing profile', async () => {
      await runCli(['award', 'create', '--community', communityId, '--name', 'Once'], testDb.env);
      const twice = await runCli(['award', 'create', '--community', communityId, '--name', 'Once'], testDb.env);
      assert.equal(twice.code, 1);
      assert.match(twice.stderr, /already has an award named "Once"/);
      const emoji = await runCli(['award', 'create', '--community', communityId, '--name', 'E', '--emoji', 'trophy'], testDb.env);
      assert.equal(emoji.code, 1);
      assert.match(emoji.stderr, /emoji: must be a shortcode/);
      const nobody = await runCli(['award', 'create', '--community', 'nope', '--name', 'X'], testDb.env);
      assert.equal(nobody.code, 1);
      const file = join(dir, 'bad.json');
      writeFileSync(
        file,
        JSON.stringify({
          awards: [
            {
              id: 'e0000000-0000-4000-8000-000000000009',
              name: 'Bad',
              assignments: [{ profile_id: 'a0000000-0000-4000-8000-000000000404' }],
            },
          ],
        }),
      );
      const bad = await runCli(['import', file, '--community', communityId], testDb.env);
      assert.equal(bad.code, 1);
      assert.match(bad.stderr, /awards\[0\]\.assignments\[0\]\.profile_id: no profile/);
    });
  });
}
