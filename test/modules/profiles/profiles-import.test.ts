import assert from 'node:assert/strict';
import { it } from 'node:test';
import { runImport } from '../../../src/import/run-import.js';
import { describeEachEngine } from '../../support/harness.js';

const profileId = '11111111-1111-4111-8111-111111111111';
const feedId = '22222222-2222-4222-8222-222222222222';

describeEachEngine('import: profiles', (ctx) => {
  it("keeps a profile's created_at when the same file (without created_at) is imported again", async () => {
    const community = await ctx().community();
    const document = {
      profiles: [{ profile_id: profileId, email: 'Ada@Example.com', first_name: 'Ada', last_name: 'Lovelace', chat_user_id: 'U1' }],
      feeds: [{ id: feedId, label: 'General' }],
      posts: [{ id: 'p1', feed_id: feedId, author_profile_id: profileId, title: 'Hello' }],
    };
    await runImport({ database: ctx().database, clock: ctx().clock, communityId: community.id }, document);
    const read = async () => {
      const res = await ctx().request({ method: 'GET', url: `/admin/v0/feeds/${feedId}/posts`, headers: community.auth });
      assert.equal(res.statusCode, 200, res.body);
      return res.json<{ data: { records: { author: { created_at: string; preferred_name: string; email: string } }[] } }>().data.records[0]
        ?.author;
    };
    const first = await read();
    assert.equal(first?.preferred_name, 'Ada Lovelace');
    ctx().clock.advance(86_400_000);
    await runImport({ database: ctx().database, clock: ctx().clock, communityId: community.id }, document);
    const second = await read();
    assert.equal(second?.created_at, first?.created_at);
  });

  it('refuses a urn:uuid: profile id, naming the field', async () => {
    const community = await ctx().community();
    await assert.rejects(
      runImport(
        { database: ctx().database, clock: ctx().clock, communityId: community.id },
        { profiles: [{ profile_id: `urn:uuid:${profileId}`, email: 'a@example.com' }] },
      ),
      /profiles\[0\]\.profile_id/,
    );
  });
});
