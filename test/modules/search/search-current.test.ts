/**
 * The index is exact and current: whatever writer changes a post (the import, the chat sync through
 * POST /chat/events), its author's name or its feed's place in Home, the next search shows it, with
 * the response cache on (the harness default), and again with it off (RESPONSE_CACHE_MB=0), where a
 * repeated search is cut from the ranked list kept for its query (docs/search.md, "Ranked lists"),
 * on both engines.
 */
import assert from 'node:assert/strict';
import { after, it } from 'node:test';
import { adaRenamedEvent, chatEventsApplied, connectedFeed, deliverSigned, eventEnvelope } from '../../support/chat-events-kit.js';
import { startFakeChatServer } from '../../support/fake-chat-server.js';
import { feed, importInto, post, postId, profile, profileId } from '../../support/feed-fixtures.js';
import { describeEachEngine, type TestApp } from '../../support/harness.js';
import { found } from './search-support.js';

const fake = await startFakeChatServer();
after(() => fake.close());

for (const { name, env } of [
  { name: 'response cache on', env: {} },
  { name: 'answers uncached, ranked lists kept', env: { RESPONSE_CACHE_MB: '0' } },
]) {
  describeEachEngine(
    `search: current after every write (${name})`,
    (ctx) => {
      it('the import: a new post is found, an edit finds the new words and not the old, a re-import changes nothing', async () => {
        const t = ctx();
        const c = await t.community();
        const find = (q: string) => found(t, c.auth, q);
        await importInto(t, c.id, { profiles: [profile(1)], feeds: [feed(1)], posts: [post(1, 1, { title: 'Apple harvest' })] });
        assert.deepEqual(await find('apple'), [postId(1)]);
        await importInto(t, c.id, { posts: [post(1, 1, { title: 'Pear harvest' }), post(2, 1, { title: 'Apple pie' })] });
        assert.deepEqual(await find('apple'), [postId(2)]);
        assert.deepEqual(await find('pear'), [postId(1)]);
        assert.deepEqual(await find('harvest'), [postId(1)]);
        await importInto(t, c.id, { posts: [post(1, 1, { title: 'Pear harvest' })] });
        assert.deepEqual(await find('harvest'), [postId(1)]);
      });

      it("a renamed author's posts are found by the new name only; a feed archived or unlisted leaves, and comes back", async () => {
        const t = ctx();
        const c = await t.community();
        const find = (q: string) => found(t, c.auth, q);
        await importInto(t, c.id, {
          profiles: [profile(1, { preferred_name: 'Grace Hopper' })],
          feeds: [feed(1), feed(2)],
          posts: [post(1, 1, { title: 'Compilers' }), post(2, 2, { title: 'Cobol' })],
        });
        assert.deepEqual(await find('hopper'), [postId(2), postId(1)]);
        await importInto(t, c.id, { profiles: [profile(1, { preferred_name: 'Amazing Grace' })] });
        assert.deepEqual(await find('hopper'), []);
        assert.deepEqual(await find('amazing'), [postId(2), postId(1)]);
        await importInto(t, c.id, { feeds: [feed(2, { is_archived: true })] });
        assert.deepEqual(await find('amazing'), [postId(1)]);
        await importInto(t, c.id, { feeds: [feed(1, { is_unlisted: true }), feed(2)] });
        assert.deepEqual(await find('amazing'), [postId(2)]);
        await importInto(t, c.id, { feeds: [feed(1)] });
        assert.deepEqual(await find('amazing'), [postId(2), postId(1)]);
      });

      it("a rename reaches the renamed author's posts only, also from a name without a word, and not a namesake's", async () => {
        const t = ctx();
        const c = await t.community();
        const find = (q: string) => found(t, c.auth, q);
        await importInto(t, c.id, {
          profiles: [
            profile(1, { preferred_name: 'Grace Hopper' }),
            profile(2, { preferred_name: 'Grace Hopper' }),
            profile(3, { preferred_name: '🙂' }),
          ],
          feeds: [feed(1)],
          posts: [
            post(1, 1, { title: 'Compilers' }),
            post(2, 1, { title: 'Cobol', author_profile_id: profileId(2) }),
            post(3, 1, { title: 'Nanoseconds', author_profile_id: profileId(3) }),
          ],
        });
        await importInto(t, c.id, {
          profiles: [profile(1, { preferred_name: 'Amazing Grace' }), profile(3, { preferred_name: 'Ada Lovelace' })],
        });
        assert.deepEqual(await find('hopper'), [postId(2)]);
        assert.deepEqual(await find('amazing'), [postId(1)]);
        assert.deepEqual(await find('lovelace'), [postId(3)]);
        await importInto(t, c.id, { profiles: [profile(3, { preferred_name: '' })] });
        assert.deepEqual(await find('lovelace'), []);
        assert.deepEqual(await find('nanoseconds'), [postId(3)]);
      });

      it('the chat sync: a message is found, its edit finds the new words, its deletion removes it, a user rename reaches it', async () => {
        const t: TestApp = ctx();
        t.clock.set(Date.now());
        fake.reset();
        fake.addUser({ email: 'ada@example.com', id: 'U0ADA', real_name: 'Ada Lovelace' });
        fake.addChannel({ id: 'C0FIND', name: 'findings', num_members: 2 });
        const c = await t.community();
        await connectedFeed(t, fake, c.id, 'C0FIND');
        const find = (q: string) => found(t, c.auth, q);
        let seq = 0;
        const deliver = async (event: Record<string, unknown>) => {
          const response = await deliverSigned(t, eventEnvelope(t, fake.teamId, event, `Ev${String(++seq).padStart(8, '0')}`));
          assert.equal(response.statusCode, 200, response.body);
          await chatEventsApplied(t);
        };
        const message = (ts: string, text: string) => ({
          type: 'message',
          channel: 'C0FIND',
          user: 'U0ADA',
          text,
          ts,
          blocks: [{ type: 'rich_text', block_id: 'b', elements: [{ type: 'rich_text_section', elements: [{ type: 'text', text }] }] }],
        });
        const ts = '1700000100.000100';
        await deliver(message(ts, 'analytical engine notes'));
        const [id] = await find('analytical');
        assert.ok(id, 'the new message is found');
        await deliver({
          type: 'message',
          subtype: 'message_changed',
          channel: 'C0FIND',
          hidden: true,
          ts: '1700000200.000000',
          message: { ...message(ts, 'difference engine notes'), edited: { user: 'U0ADA', ts: '1700000200.000000' } },
          previous_message: message(ts, 'analytical engine notes'),
        });
        assert.deepEqual(await find('analytical'), []);
        assert.deepEqual(await find('difference'), [id]);
        await deliver(adaRenamedEvent(fake.teamId));
        assert.deepEqual(await find('countess difference'), [id]);
        await deliver({
          type: 'message',
          subtype: 'message_deleted',
          channel: 'C0FIND',
          hidden: true,
          deleted_ts: ts,
          ts: '1700000300.000000',
          previous_message: message(ts, 'difference engine notes'),
        });
        assert.deepEqual(await find('difference'), []);
        assert.deepEqual(await find('countess'), []);
      });
    },
    { env },
  );
}
