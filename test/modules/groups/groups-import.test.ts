import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { it } from 'node:test';
import { ImportError } from '../../../src/import/import-section.js';
import { runImport } from '../../../src/import/run-import.js';
import { describeEachEngine, type TestApp } from '../../support/harness.js';

const addToGroup = (t: TestApp, auth: { authorization: string }, groupId: string, profileId: string) =>
  t.request({ method: 'POST', url: `/admin/v0/groups/${groupId}/members`, headers: auth, payload: { user: { profile_id: profileId } } });

const isAlreadyMember = async (t: TestApp, auth: { authorization: string }, groupId: string, profileId: string) => {
  const res = await addToGroup(t, auth, groupId, profileId);
  assert.equal(res.statusCode, 200, res.body);
  return res.json<{ message?: string }>().message !== undefined;
};

describeEachEngine('import: groups section', (ctx) => {
  it('loads groups with their member profiles (from the file or already stored)', async () => {
    const t = ctx();
    const { id: communityId, auth } = await t.community();
    const stored = randomUUID();
    const inFile = randomUUID();
    const outside = randomUUID();
    await runImport(
      { database: t.database, clock: t.clock, communityId },
      { profiles: [{ profile_id: stored, email: 'stored@example.com' }] },
    );
    const counts = await runImport(
      { database: t.database, clock: t.clock, communityId },
      {
        profiles: [
          { profile_id: inFile, email: 'infile@example.com' },
          { profile_id: outside, email: 'outside@example.com' },
        ],
        groups: [
          { id: 'g1', name: 'Group One', member_profile_ids: [stored, inFile.toUpperCase()] },
          { id: 'g2', name: 'Empty' },
        ],
      },
    );
    assert.equal(counts.groups, 2);
    assert.equal(await isAlreadyMember(t, auth, 'g1', stored), true);
    assert.equal(await isAlreadyMember(t, auth, 'g1', inFile), true);
    assert.equal(await isAlreadyMember(t, auth, 'g1', outside), false);
  });

  it('upserts by id: a re-import renames the group and makes its members exactly the listed ones', async () => {
    const t = ctx();
    const { id: communityId, auth } = await t.community();
    const [p1, p2] = [randomUUID(), randomUUID()];
    const profiles = [
      { profile_id: p1, email: 'p1@example.com' },
      { profile_id: p2, email: 'p2@example.com' },
    ];
    await runImport(
      { database: t.database, clock: t.clock, communityId },
      { profiles, groups: [{ id: 'g', name: 'Old', member_profile_ids: [p1] }] },
    );
    await addToGroup(t, auth, 'g', p2);
    await runImport(
      { database: t.database, clock: t.clock, communityId },
      { groups: [{ id: 'g', name: 'New', member_profile_ids: [p1] }] },
    );
    await runImport(
      { database: t.database, clock: t.clock, communityId },
      { groups: [{ id: 'g', name: 'New', member_profile_ids: [p1] }] },
    );
    const groups = await t.database.db.selectFrom('groups').select(['id', 'name']).where('community_id', '=', communityId).execute();
    assert.deepEqual(groups, [{ id: 'g', name: 'New' }]);
    const members = await t.database.db.selectFrom('group_members').select('profile_id').where('community_id', '=', communityId).execute();
    assert.deepEqual(members, [{ profile_id: p1 }]);
  });

  it('refuses a member profile that does not exist, naming section, index and field, and keeps nothing', async () => {
    const t = ctx();
    const { id: communityId } = await t.community();
    const other = await t.community();
    const foreign = randomUUID();
    await runImport(
      { database: t.database, clock: t.clock, communityId: other.id },
      { profiles: [{ profile_id: foreign, email: 'foreign@example.com' }] },
    );
    const real = randomUUID();
    await assert.rejects(
      runImport(
        { database: t.database, clock: t.clock, communityId },
        {
          profiles: [{ profile_id: real, email: 'real@example.com' }],
          groups: [
            { id: 'ok', name: 'Ok', member_profile_ids: [real] },
            { id: 'bad', name: 'Bad', member_profile_ids: [real, foreign] },
          ],
        },
      ),
      (error: unknown) => error instanceof ImportError && error.message.startsWith('groups[1].member_profile_ids[1]:'),
    );
    const groups = await t.database.db.selectFrom('groups').select('id').where('community_id', '=', communityId).execute();
    assert.deepEqual(groups, []);
  });

  const refusals: { name: string; record: Record<string, unknown>; prefix: string }[] = [
    { name: 'an unknown field', record: { id: 'g', name: 'G', members: [] }, prefix: 'groups[0].members:' },
    { name: 'a missing name', record: { id: 'g' }, prefix: 'groups[0].name:' },
    { name: 'an empty id', record: { id: '', name: 'G' }, prefix: 'groups[0].id:' },
    {
      name: 'a member id that is not a UUID',
      record: { id: 'g', name: 'G', member_profile_ids: ['p1'] },
      prefix: 'groups[0].member_profile_ids[0]',
    },
  ];
  for (const { name, record, prefix } of refusals) {
    it(`refuses ${name}`, async () => {
      const t = ctx();
      const { id: communityId } = await t.community();
      await assert.rejects(
        runImport({ database: t.database, clock: t.clock, communityId }, { groups: [record] }),
        (error: unknown) => error instanceof ImportError && error.message.startsWith(prefix),
      );
    });
  }

  it('refuses a duplicate group id', async () => {
    const t = ctx();
    const { id: communityId } = await t.community();
    await assert.rejects(
      runImport(
        { database: t.database, clock: t.clock, communityId },
        {
          groups: [
            { id: 'g', name: 'A' },
            { id: 'g', name: 'B' },
          ],
        },
      ),
      (error: unknown) => error instanceof ImportError && error.message.startsWith('groups[1].id:'),
    );
  });
});
