import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import * as fx from '../../support/feed-fixtures.js';
import { describeEachEngine } from '../../support/harness.js';

// Facts of decisions.md, "Answering as the hosted product answers", for feeds, posts and the
// profiles they carry: what a client of the hosted product reads must read the same here.

const eventId = 'evhosted0001';

describeEachEngine('feeds and posts: answering as the hosted product answers', (ctx) => {
  let auth: fx.Auth;
  let communityId: string;

  const postById = async (id: string): Promise<fx.Json> => {
    const { body } = await fx.listPosts(ctx(), auth, 'home', 'per_page=50');
    const found = body.data.records.find((record) => record.id === id);
    assert.ok(found, `post ${id} is listed`);
    return found;
  };

  before(async () => {
    const community = await ctx().community('enterprise');
    auth = community.auth;
    communityId = community.id;
    await fx.importInto(ctx(), communityId, {
      profiles: [
        fx.profile(1, { chat_first_name: 'Ada', chat_last_name: 'L' }),
        // A bot of the chat platform: no e-mail at all.
        { profile_id: fx.profileId(2), preferred_name: 'Standup Bot', chat_user_id: 'B2', chat_is_bot: true },
        { profile_id: fx.profileId(3), email: null, chat_user_id: 'U3' },
        { profile_id: fx.profileId(4), email: '', chat_user_id: 'U4' },
      ],
      feeds: [fx.feed(1)],
      posts: [
        fx.post(1, 1, { chat_message: { message_ts: '1747250195.525399' } }),
        fx.post(2, 1, { chat_message: { message_ts: '1747250195.525390' } }),
        fx.post(3, 1, { chat_message: { message_ts: 1747250195.525399 } }),
        fx.post(4, 1, { author_profile_id: fx.profileId(2) }),
        fx.post(5, 1, {
          cover_image_file_id: '',
          cover_image_url: '',
          chat_message: { parent_chat_message_id: '', username: '', icon: '' },
        }),
        fx.post(6, 1, {
          chat_message: {
            blocks: [
              fx.block(
                fx.section(
                  fx.emoji('yarn'),
                  fx.text(' '),
                  fx.emoji('heart', '2764-fe0f'),
                  fx.text(' '),
                  fx.emoji('zap', '26a1'),
                  fx.text(' '),
                  {
                    type: 'emoji',
                    name: 'wave',
                    unicode: '1f44b-1f3fd',
                    skin_tone: 4,
                  },
                ),
              ),
            ],
          },
        }),
      ],
      calendar_events: [
        {
          id: eventId,
          title: 'Published to a channel bound to no feed',
          status: 'published',
          start_date: '2026-12-01T18:00:00Z',
          published_to: [
            { chat_channel_id: 'C0NOFEED', chat_message_permalink: 'https://chat.example.com/archives/C0NOFEED/p1' },
            { feed_id: null, chat_channel_id: 'C0NOFEED2' },
            { feed_id: fx.feedId(1), chat_channel_id: 'C1' },
          ],
        },
      ],
    });
  });

  it('answers chat_message.message_ts as the string the chat platform wrote, digit for digit', async () => {
    assert.equal(((await postById(fx.postId(1))).chat_message as fx.Json).message_ts, '1747250195.525399');
    assert.equal(((await postById(fx.postId(2))).chat_message as fx.Json).message_ts, '1747250195.525390');
  });

  it('takes message_ts as a number too, and answers it as a string with six decimals', async () => {
    assert.equal(((await postById(fx.postId(3))).chat_message as fx.Json).message_ts, '1747250195.525399');
  });

  it('refuses a message_ts that is not a chat timestamp, naming the field', async () => {
    const community = await ctx().community();
    const message = await fx.importError(ctx(), community.id, {
      profiles: [fx.profile(1)],
      feeds: [fx.feed(1)],
      posts: [fx.post(1, 1, { chat_message: { message_ts: 'yesterday' } })],
    });
    assert.match(message, /^posts\[0\]\.chat_message\.message_ts: /);
  });

  it('answers null, not "", for the cover image, parent message, username and icon a post does not have', async () => {
    for (const id of [fx.postId(4), fx.postId(5)]) {
      const record = await postById(id);
      assert.equal(record.cover_image_file_id, null, id);
      assert.equal(record.cover_image_url, null, id);
      const message = record.chat_message as fx.Json;
      assert.equal(message.parent_chat_message_id, null, id);
      assert.equal(message.username, null, id);
      assert.equal(message.icon, null, id);
    }
  });

  it("gives a post's author the whole profile, names and e-mail included", async () => {
    const author = (await postById(fx.postId(1))).author as fx.Json;
    assert.equal(author.first_name, 'First1');
    assert.equal(author.last_name, 'Last1');
    assert.equal(author.email, 'person1@example.com');
    assert.equal(author.chat_first_name, 'Ada');
    assert.equal(author.chat_last_name, 'L');
  });

  it('takes profiles without an e-mail (absent, null or "") and answers their email as null', async () => {
    const author = (await postById(fx.postId(4))).author as fx.Json;
    assert.equal(author.profile_id, fx.profileId(2));
    assert.equal(author.preferred_name, 'Standup Bot');
    assert.equal(author.email, null);
    assert.equal(author.chat_is_bot, true);
  });

  it('keeps emoji as shortcodes in body_plaintext and chat_message.markdown, skin tone included', async () => {
    const record = await postById(fx.postId(6));
    assert.equal(record.body_plaintext, ':yarn: :heart: :zap: :wave::skin-tone-4:');
    assert.equal((record.chat_message as fx.Json).markdown, ':yarn: :heart: :zap: :wave::skin-tone-4:');
  });

  it('answers published_to[].feed_id null for a channel bound to no feed, and the feed id otherwise', async () => {
    const res = await ctx().request({ method: 'GET', url: `/admin/v0/calendar_events/${eventId}`, headers: auth });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json<{ data: fx.Json }>().data.published_to, [
      { chat_channel_id: 'C0NOFEED', chat_message_permalink: 'https://chat.example.com/archives/C0NOFEED/p1', feed_id: null },
      { chat_channel_id: 'C0NOFEED2', chat_message_permalink: '', feed_id: null },
      { chat_channel_id: 'C1', chat_message_permalink: '', feed_id: fx.feedId(1) },
    ]);
    // The feed filter still finds the event by the feed it is published to.
    const listed = await ctx().request({
      method: 'GET',
      url: `/admin/v0/calendar_events?time_filter=all&feed_id=${fx.feedId(1)}`,
      headers: auth,
    });
    assert.deepEqual(
      listed.json<{ data: { records: fx.Json[] } }>().data.records.map((record) => record.id),
      [eventId],
    );
  });

  it('refuses a published_to entry with neither a feed nor a channel', async () => {
    const community = await ctx().community();
    const message = await fx.importError(ctx(), community.id, {
      calendar_events: [
        { id: 'evnothing001', status: 'published', start_date: '2026-12-01T18:00:00Z', published_to: [{ chat_message_permalink: 'x' }] },
      ],
    });
    assert.match(message, /^calendar_events\[0\]\.published_to\[0\]: needs a feed_id or a chat_channel_id/);
  });

  it('never lets a blank e-mail find a profile without one (group add answers 400)', async () => {
    await fx.importInto(ctx(), communityId, { groups: [{ id: 'grp-bots', name: 'Bots' }] });
    const res = await ctx().request({
      method: 'POST',
      url: '/admin/v0/groups/grp-bots/members',
      headers: auth,
      payload: { user: { email: '   ' } },
    });
    assert.equal(res.statusCode, 400);
    assert.match(res.json<{ error: { message: string } }>().error.message, /body\.user\.email/);
  });

  it('links a new member to no profile without an e-mail (member operations still need one)', async () => {
    const res = await ctx().request({
      method: 'POST',
      url: '/admin/v0/members',
      headers: auth,
      payload: { email: 'new.person@example.com', full_name: 'New Person' },
    });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.json<{ data: { member: fx.Json } }>().data.member.chat_profile_id, null);
    const noEmail = await ctx().request({ method: 'POST', url: '/admin/v0/members', headers: auth, payload: { full_name: 'No Mail' } });
    assert.equal(noEmail.statusCode, 400);
  });
});
