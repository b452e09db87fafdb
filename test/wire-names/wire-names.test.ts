import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { runImport } from '../../src/import/run-import.js';
import { describeEachEngine, type TestApp } from '../support/harness.js';

type Json = Record<string, unknown>;

const profileId = (n: number) => `a1000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const feedId = 'f1000000-0000-4000-8000-000000000001';
const messageId = 'e1000000-0000-4000-8000-000000000001';

const mention = (user: string) => [
  { type: 'rich_text', block_id: 'b', elements: [{ type: 'rich_text_section', elements: [{ type: 'user', user_id: user }] }] },
];

/** Data in the spec's spelling, with values that contain the words the renaming looks for. */
const chatSpelled: Json = {
  profiles: [
    { profile_id: profileId(1), email: 'ada@example.com', first_name: 'Ada', chat_user_id: 'U1', chat_is_admin: true },
    { profile_id: profileId(2), email: 'bob@example.com', first_name: 'Bob', chat_user_id: 'U2' },
  ],
  feeds: [
    {
      id: feedId,
      label: 'chat_channel_id talk',
      chat_channel_id: 'C1',
      chat_channel_name: 'chat',
      chat_channel_purpose_chat_blocks: mention('U2'),
      show_in_navigation_menu: true,
    },
  ],
  posts: [
    {
      id: 'post-1',
      feed_id: feedId,
      author_profile_id: profileId(1),
      title: '"chat_message": not a key',
      source: 'chat',
      chat_message: { id: messageId, blocks: mention('U2'), username: 'chat' },
    },
  ],
  calendar_events: [
    {
      id: 'WireEvent001',
      status: 'published',
      start_date: '2030-01-01T18:00:00Z',
      title: 'partner_event_id and chat_user_id in a title',
      partner_event_id: 'luma-1',
      description_chat_blocks: mention('U2'),
      host_profile_ids: [profileId(1)],
      published_to: [{ feed_id: feedId, chat_channel_id: 'C1', chat_message_permalink: 'https://x.slack.com/archives/C1/p1' }],
    },
  ],
};

/** Every object key of a JSON value, at any depth. */
function keysOf(value: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const item of value) keysOf(item, into);
  else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      into.add(key);
      keysOf(item, into);
    }
  }
  return into;
}

const chatKeys = (value: unknown) => [...keysOf(value)].filter((key) => /(^|_)chat(_|$)|partner_event_id/.test(key));

async function get(app: TestApp, auth: Json, url: string): Promise<Json> {
  const response = await app.request({ method: 'GET', url, headers: auth as Record<string, string> });
  assert.equal(response.statusCode, 200, response.body);
  return response.json<{ data: Json }>().data;
}

describeEachEngine(
  'WIRE_NAMES=slack: the hosted product spelling',
  (ctx) => {
    let auth: { authorization: string };
    before(async () => {
      const community = await ctx().community('enterprise');
      auth = community.auth;
      await runImport({ database: ctx().database, clock: ctx().clock, communityId: community.id }, chatSpelled);
    });

    it('event get and list answer slack and luma names, nested too; string values keep their words', async () => {
      const event = await get(ctx(), auth, '/admin/v0/calendar_events/WireEvent001');
      assert.deepEqual(chatKeys(event), []);
      assert.equal(event.luma_event_id, 'luma-1');
      assert.deepEqual(event.description_slack_blocks, mention('U2'));
      const references = event.description_slack_blocks_references as Json;
      assert.deepEqual(references.mentioned_slack_users, [{ profile_id: profileId(2), preferred_name: 'Bob', slack_user_id: 'U2' }]);
      assert.ok(Array.isArray(references.mentioned_slack_channels));
      assert.deepEqual(event.published_to, [
        { slack_channel_id: 'C1', slack_message_permalink: 'https://x.slack.com/archives/C1/p1', feed_id: feedId },
      ]);
      const host = (event.hosts as Json[])[0] as Json;
      assert.equal(host.slack_user_id, 'U1');
      assert.equal(host.slack_is_admin, true);
      assert.equal(event.title, 'partner_event_id and chat_user_id in a title', 'values are never renamed');
      const list = await get(ctx(), auth, '/admin/v0/calendar_events?time_filter=upcoming&reference_date=2026-01-01T00:00:00Z');
      assert.deepEqual(chatKeys(list), []);
      assert.equal(((list.records as Json[])[0] as Json).luma_event_id, 'luma-1');
    });

    it('posts answer source "slack", slack_message and the author in slack names; feeds too', async () => {
      const page = await get(ctx(), auth, `/admin/v0/feeds/${feedId}/posts`);
      assert.deepEqual(chatKeys(page), []);
      const post = (page.records as Json[])[0] as Json;
      assert.equal(post.source, 'slack');
      assert.equal(post.title, '"chat_message": not a key');
      const message = post.slack_message as Json;
      assert.equal(message.id, messageId);
      assert.equal(message.username, 'chat');
      assert.equal((post.author as Json).slack_user_id, 'U1');
      assert.ok(Array.isArray((post.references as Json).mentioned_slack_users));
      const feed = await get(ctx(), auth, `/admin/v0/feeds/${feedId}`);
      assert.deepEqual(chatKeys(feed), []);
      assert.equal(feed.slack_channel_id, 'C1');
      assert.equal(feed.label, 'chat_channel_id talk');
      assert.equal(feed.slack_channel_name, 'chat');
      assert.deepEqual(feed.slack_channel_purpose_slack_blocks, mention('U2'));
      assert.deepEqual(feed.slack_channel_topic_slack_blocks, []);
      assert.deepEqual((feed.slack_channel_purpose_slack_blocks_references as Json).mentioned_slack_users, [
        { profile_id: profileId(2), preferred_name: 'Bob', slack_user_id: 'U2' },
      ]);
      assert.ok('slack_channel_topic_slack_blocks_references' in feed);
      assert.equal(feed.show_in_navigation_menu, true);
      assert.equal(feed.is_site_posting_enabled, false);
    });

    it('members add takes invite_to_slack and slack_channel_ids, refuses invite_to_chat, and answers slack_profile_id', async () => {
      const add = (body: Json) =>
        ctx().request({
          method: 'POST',
          url: '/admin/v0/members',
          headers: { ...auth, 'content-type': 'application/json' },
          payload: body,
        });
      const created = await add({ email: 'ada@example.com', full_name: 'Ada Lovelace', invite_to_slack: false });
      assert.equal(created.statusCode, 201, created.body);
      const member = created.json<{ data: { member: Json } }>().data.member as Json;
      assert.equal(member.slack_profile_id, profileId(1));
      assert.deepEqual(chatKeys(created.json()), []);
      const refused = await add({ email: 'x@example.com', full_name: 'X Y', invite_to_chat: true });
      assert.equal(refused.statusCode, 400, refused.body);
      assert.match(refused.json<{ error: { message: string } }>().error.message, /invite_to_chat/);
      const channels = await add({ email: 'x@example.com', full_name: 'X Y', slack_channel_ids: ['C1'] });
      assert.equal(channels.statusCode, 400, channels.body);
      const error = channels.json<{ error: { code: string; message: string } }>().error;
      assert.equal(error.message.includes('chat_'), false, error.message);
      assert.match(error.message, /slack_channel_ids/);
      assert.match(error.message, /invite_to_slack/);
      const noConnection = await add({ email: 'y@example.com', full_name: 'Y Z', invite_to_slack: true });
      assert.equal(noConnection.statusCode, 400, noConnection.body);
      assert.match(noConnection.json<{ error: { hint: string } }>().error.hint, /invite_to_slack/);
    });

    it('attendee add takes user.slack_user_id; an unknown one is named slack_user_id in the error message', async () => {
      const patch = (user: Json) =>
        ctx().request({
          method: 'PATCH',
          url: '/admin/v0/calendar_events/WireEvent001/attendees',
          headers: { ...auth, 'content-type': 'application/json' },
          payload: { user },
        });
      const added = await patch({ slack_user_id: 'U2' });
      assert.equal(added.statusCode, 200, added.body);
      const event = await get(ctx(), auth, '/admin/v0/calendar_events/WireEvent001');
      assert.equal(event.attendees_count, 1);
      const unknown = await patch({ slack_user_id: 'U404' });
      assert.equal(unknown.statusCode, 404, unknown.body);
      assert.match(unknown.json<{ error: { message: string } }>().error.message, /slack_user_id "U404"/);
      const old = await patch({ chat_user_id: 'U2' });
      assert.equal(old.statusCode, 400, old.body);
    });

    it('the OpenAPI document spells every field the slack way', async () => {
      const response = await ctx().request({ method: 'GET', url: '/admin/v0/openapi.json' });
      assert.equal(response.statusCode, 200);
      const document = response.json();
      assert.deepEqual(chatKeys(document), []);
      const text = response.body;
      for (const name of [
        'invite_to_slack',
        'slack_channel_ids',
        'slack_user_id',
        'description_slack_blocks',
        'mentioned_slack_users',
        'luma_event_id',
        'slack_message',
      ]) {
        assert.ok(text.includes(`"${name}"`), name);
      }
      // The activity log's own vocabulary (actor type `chat_sync`, actions `chat_sync.*`) is the log's, not
      // the spec's: the same under both spellings (docs/wire-names.md), so stored records never change meaning.
      const withoutLogVocabulary = text.replace(/"chat_sync(\.[a-z_*]+)?"/g, '""');
      assert.equal(/"[a-z_]*\bchat_[a-z_]+"/.test(withoutLogVocabulary), false, 'no chat_ identifier left in the document');
    });
  },
  { env: { WIRE_NAMES: 'slack' } },
);

describeEachEngine('WIRE_NAMES=chat (default): the spec spelling; the import takes either spelling', (ctx) => {
  it('imports a file in the hosted product spelling and answers in the spec spelling', async () => {
    const { id, auth } = await ctx().community('enterprise');
    const slackSpelled = JSON.parse(
      JSON.stringify(chatSpelled)
        .replace(/"chat_user_id":/g, '"slack_user_id":')
        .replace(/"description_chat_blocks":/g, '"description_slack_blocks":')
        .replace(/"partner_event_id":/g, '"luma_event_id":')
        .replace(/"chat_message":\{/g, '"slack_message":{')
        .replace(/"source":"chat"/g, '"source":"slack"'),
    ) as Json;
    await runImport({ database: ctx().database, clock: ctx().clock, communityId: id }, slackSpelled);
    const event = await get(ctx(), auth, '/admin/v0/calendar_events/WireEvent001');
    assert.equal(event.partner_event_id, 'luma-1');
    assert.deepEqual(event.description_chat_blocks, mention('U2'));
    assert.equal(((event.hosts as Json[])[0] as Json).chat_user_id, 'U1');
    const post = ((await get(ctx(), auth, `/admin/v0/feeds/${feedId}/posts`)).records as Json[])[0] as Json;
    assert.equal(post.source, 'chat');
    assert.equal((post.chat_message as Json).id, messageId);
    const openapi = await ctx().request({ method: 'GET', url: '/admin/v0/openapi.json' });
    assert.ok(openapi.body.includes('"invite_to_chat"') && !openapi.body.includes('slack_user_id'));
  });

  it('refuses a record that gives a field in both spellings, naming it', async () => {
    const { id } = await ctx().community('enterprise');
    await assert.rejects(
      runImport(
        { database: ctx().database, clock: ctx().clock, communityId: id },
        {
          profiles: [{ profile_id: profileId(9), email: 'z@example.com', chat_user_id: 'U9', slack_user_id: 'U9' }],
        },
      ),
      /profiles\[0\]\.slack_user_id: is also given as "chat_user_id"/,
    );
  });
});
