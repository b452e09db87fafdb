import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { type Auth, feed, feedId, importInto, type Json, listPosts, post, profile } from '../../support/feed-fixtures.js';
import { describeEachEngine } from '../../support/harness.js';

/*
 * Issue 17: a post record, and the author profile inside it, spell every instant in PostgreSQL's
 * text form (`2025-05-14 19:16:38.630803+00`), kept to the microsecond from the import.
 */
describeEachEngine('posts: timestamps to the microsecond', (ctx) => {
  let auth: Auth;

  before(async () => {
    const community = await ctx().community();
    auth = community.auth;
    await importInto(ctx(), community.id, {
      profiles: [profile(1, { created_at: '2025-03-11T13:06:35.552988+00:00' })],
      feeds: [feed(1)],
      posts: [
        post(1, 1, {
          created_at: '2025-05-14 19:16:38.630803+00',
          updated_at: '2025-05-14T21:16:38.63+02:00',
          content_created_at: '2025-05-14T19:16:38.000001Z',
          latest_activity_at: '2025-05-15T00:00:00Z',
        }),
      ],
    });
  });

  it("answers a post's instants in PostgreSQL's text spelling, to the microsecond", async () => {
    const { body } = await listPosts(ctx(), auth, feedId(1));
    const record = body.data.records[0] as Json;
    assert.equal(record.created_at, '2025-05-14 19:16:38.630803+00');
    assert.equal(record.updated_at, '2025-05-14 19:16:38.63+00');
    assert.equal(record.content_created_at, '2025-05-14 19:16:38.000001+00');
    assert.equal(record.latest_activity_at, '2025-05-15 00:00:00+00');
  });

  it("spells the author's created_at in the text spelling too, to the microsecond", async () => {
    const { body } = await listPosts(ctx(), auth, 'home');
    assert.equal((body.data.records[0]?.author as Json).created_at, '2025-03-11 13:06:35.552988+00');
  });
});
