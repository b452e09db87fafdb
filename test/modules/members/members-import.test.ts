import assert from 'node:assert/strict';
import { it } from 'node:test';
import { ImportError } from '../../../src/import/import-section.js';
import { describeEachEngine } from '../../support/harness.js';
import { checkMember, importInto, newId, storedMember } from './members-support.js';

describeEachEngine('import: members section', (ctx) => {
  it('loads members with defaults for what the file leaves out', async () => {
    const t = ctx();
    const { id: communityId } = await t.community();
    const id = newId();
    const counts = await importInto(t, communityId, { members: [{ id, email: 'Imp@Example.com', full_name: 'Imp Orted' }] });
    assert.equal(counts.members, 1);
    const row = await storedMember(t, communityId, id);
    assert.deepEqual(
      {
        email: row?.email,
        full_name: row?.full_name,
        preferred_name: row?.preferred_name,
        avatar: row?.avatar_url_original,
        chat: row?.chat_profile_id,
        state: row?.state,
      },
      { email: 'Imp@Example.com', full_name: 'Imp Orted', preferred_name: 'Imp', avatar: null, chat: null, state: 'active' },
    );
  });

  it('upserts by id: importing the same file twice keeps one member, a changed record updates it', async () => {
    const t = ctx();
    const { id: communityId, auth } = await t.community();
    const id = newId();
    const file = { members: [{ id, email: 'twice@example.com', full_name: 'Twice Loaded', state: 'active' }] };
    await importInto(t, communityId, file);
    await importInto(t, communityId, file);
    await importInto(t, communityId, { members: [{ id, email: 'twice@example.com', full_name: 'Renamed Member', state: 'deactivated' }] });
    const rows = await t.database.db.selectFrom('members').select(['id', 'full_name']).where('community_id', '=', communityId).execute();
    assert.deepEqual(rows, [{ id, full_name: 'Renamed Member' }]);
    assert.equal((await checkMember(t, auth, 'twice@example.com')).is_deactivated, true);
  });

  it('accepts chat_profile_id naming a profile of the file or of the community', async () => {
    const t = ctx();
    const { id: communityId } = await t.community();
    const earlier = newId();
    const inFile = newId();
    await importInto(t, communityId, { profiles: [{ profile_id: earlier, email: 'early@example.com', chat_user_id: 'U0EARLY' }] });
    const a = newId();
    const b = newId();
    await importInto(t, communityId, {
      profiles: [{ profile_id: inFile, email: 'file@example.com', chat_user_id: 'U0FILE' }],
      members: [
        { id: a, email: 'early@example.com', full_name: 'Early Bird', chat_profile_id: earlier },
        { id: b, email: 'file@example.com', full_name: 'File Bird', chat_profile_id: inFile.toUpperCase() },
      ],
    });
    assert.equal((await storedMember(t, communityId, a))?.chat_profile_id, earlier);
    assert.equal((await storedMember(t, communityId, b))?.chat_profile_id, inFile);
  });

  it('refuses a dangling chat_profile_id naming section, index and field, and keeps nothing of the file', async () => {
    const t = ctx();
    const { id: communityId, auth } = await t.community();
    const other = await t.community();
    const foreignProfile = newId();
    await importInto(t, other.id, { profiles: [{ profile_id: foreignProfile, email: 'foreign@example.com' }] });
    await assert.rejects(
      importInto(t, communityId, {
        profiles: [{ profile_id: newId(), email: 'kept.not@example.com' }],
        members: [
          { id: newId(), email: 'ok@example.com', full_name: 'Ok One' },
          { id: newId(), email: 'dangling@example.com', full_name: 'Dang Ling', chat_profile_id: foreignProfile },
        ],
      }),
      (error: unknown) => error instanceof ImportError && error.message.startsWith('members[1].chat_profile_id:'),
    );
    assert.equal((await checkMember(t, auth, 'ok@example.com')).is_member, false);
    const profiles = await t.database.db.selectFrom('profiles').select('id').where('community_id', '=', communityId).execute();
    assert.deepEqual(profiles, []);
  });

  const refusals: { name: string; record: Record<string, unknown>; prefix: string }[] = [
    {
      name: 'an unknown field',
      record: { id: 'ID', email: 'u@example.com', full_name: 'U N', nickname: 'x' },
      prefix: 'members[0].nickname:',
    },
    {
      name: 'an unknown state',
      record: { id: 'ID', email: 'u@example.com', full_name: 'U N', state: 'paused' },
      prefix: 'members[0].state:',
    },
    { name: 'a missing email', record: { id: 'ID', full_name: 'U N' }, prefix: 'members[0].email:' },
    { name: 'a bad email', record: { id: 'ID', email: 'nope', full_name: 'U N' }, prefix: 'members[0].email:' },
    { name: 'an id that is not a UUID', record: { id: 'member-1', email: 'u@example.com', full_name: 'U N' }, prefix: 'members[0].id:' },
    {
      name: 'a bad avatar URL',
      record: { id: 'ID', email: 'u@example.com', full_name: 'U N', avatar_url_original: 'ftp://x' },
      prefix: 'members[0].avatar_url_original',
    },
  ];
  for (const { name, record, prefix } of refusals) {
    it(`refuses ${name}`, async () => {
      const t = ctx();
      const { id: communityId } = await t.community();
      const withId = record.id === 'ID' ? { ...record, id: newId() } : record;
      await assert.rejects(
        importInto(t, communityId, { members: [withId] }),
        (error: unknown) => error instanceof ImportError && error.message.startsWith(prefix),
      );
    });
  }

  it('refuses a duplicate id, and two members of the file with one email', async () => {
    const t = ctx();
    const { id: communityId } = await t.community();
    const id = newId();
    await assert.rejects(
      importInto(t, communityId, {
        members: [
          { id, email: 'a@example.com', full_name: 'A A' },
          { id, email: 'b@example.com', full_name: 'B B' },
        ],
      }),
      (error: unknown) => error instanceof ImportError && error.message.startsWith('members[1].id:'),
    );
    await assert.rejects(
      importInto(t, communityId, {
        members: [
          { id: newId(), email: 'same@example.com', full_name: 'A A' },
          { id: newId(), email: 'SAME@example.com', full_name: 'B B' },
        ],
      }),
      (error: unknown) => error instanceof ImportError && error.message.startsWith('members[1].email:'),
    );
  });

  it('refuses an email already held by another member of the community', async () => {
    const t = ctx();
    const { id: communityId } = await t.community();
    const holder = newId();
    await importInto(t, communityId, { members: [{ id: holder, email: 'held@example.com', full_name: 'Hold Er' }] });
    await assert.rejects(
      importInto(t, communityId, { members: [{ id: newId(), email: 'Held@example.com', full_name: 'Tak Er' }] }),
      (error: unknown) => error instanceof ImportError && error.message.startsWith('members[0].email:') && error.message.includes(holder),
    );
  });
});
