import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, beforeEach, it } from 'node:test';
import { createApiKey } from '../../../src/modules/api-keys/api-keys.commands.js';
import { microsFromMillis } from '../../../src/shared/time.js';
import { formatJsonTimestamp } from '../../../src/shared/timestamps.js';
import { startFakeChatServer } from '../../support/fake-chat-server.js';
import { describeEachEngine } from '../../support/harness.js';
import { connectToFake, fakeChatOptions } from '../members/members-support.js';
import { event, eventId, feed, importInto, profile, uuid } from './fixtures.js';

const fake = await startFakeChatServer();
after(() => fake.close());

type Json = Record<string, unknown>;
interface Answer {
  success: boolean;
  message?: string;
  data: Json & { id: string; slug: string; status: string; tags: Json[]; hosts: Json[]; speakers: Json[]; published_to: Json[] };
  error?: { code: string; message: string; hint: string };
}

const base = { title: 'Launch party', start_date: '2026-12-01T18:00:00Z' };

describeEachEngine(
  'POST and PATCH /admin/v0/calendar_events',
  (ctx) => {
    let auth: { authorization: string };
    let communityId = '';
    const post = (body: unknown, headers: Json = {}) =>
      ctx().request({ method: 'POST', url: '/admin/v0/calendar_events', headers: { ...auth, ...headers }, payload: body as Json });
    const patch = (id: string, body: unknown, headers: Json = {}) =>
      ctx().request({ method: 'PATCH', url: `/admin/v0/calendar_events/${id}`, headers: { ...auth, ...headers }, payload: body as Json });
    const get = (id: string) => ctx().request({ method: 'GET', url: `/admin/v0/calendar_events/${id}`, headers: auth });
    const created = async (body: Json) => {
      const res = await post(body);
      assert.equal(res.statusCode, 201, res.body);
      return res.json<Answer>().data;
    };
    const refusal = (res: { statusCode: number; json: <T>() => T }, field: RegExp) => {
      assert.equal(res.statusCode, 400);
      const body = res.json<Answer>();
      assert.equal(body.error?.code, 'validation_failed');
      assert.match(body.error?.message ?? '', field);
    };

    before(async () => {
      const t = ctx();
      const community = await t.community();
      auth = community.auth;
      communityId = community.id;
      await importInto(t, community.id, {
        profiles: [profile(1), profile(2), profile(3)],
        feeds: [feed(1)],
        calendar_events: [
          event(1, '2026-11-01T10:00:00Z', null, {
            tags: [
              { id: 'tag-ai', label: 'AI', tag_group_id: 'topics', created_at: '2026-01-02T00:00:00Z' },
              { id: 'tag-web', label: 'Web' },
            ],
            slug: 'taken',
          }),
        ],
      });
    });
    beforeEach(() => fake.reset());

    it('creates an event: 201 with exactly what GET shows, with defaults, and the list shows it at once', async () => {
      const t = ctx();
      const list = async () =>
        (await t.request({ method: 'GET', url: '/admin/v0/calendar_events?time_filter=all&per_page=50', headers: auth })).json<{
          data: { records: { id: string }[] };
        }>();
      const before = (await list()).data.records.length;
      const res = await post({ ...base, location: 'Berlin', reminders_config: [{ minutes: 30 }] });
      assert.equal(res.statusCode, 201, res.body);
      const body = res.json<Answer>();
      assert.equal(body.message, undefined);
      assert.match(body.data.id, /^[0-9a-zA-Z]{12}$/);
      assert.equal(res.headers.location, `/admin/v0/calendar_events/${body.data.id}`);
      assert.deepEqual(body, (await get(body.data.id)).json());
      assert.equal(body.data.status, 'published');
      assert.equal(body.data.title, 'Launch party');
      assert.equal(body.data.location, 'Berlin');
      assert.equal(body.data.slug, 'launch-party');
      assert.deepEqual(body.data.reminders_config, [{ minutes: 30 }]);
      assert.equal(body.data.created_at, formatJsonTimestamp(microsFromMillis(t.clock.now())));
      const after = await list();
      assert.equal(after.data.records.length, before + 1);
      assert.ok(after.data.records.some((r) => r.id === body.data.id));
    });

    it('derives a unique slug from the title (-2, -3), keeps a given free slug and refuses a taken one naming body.slug', async () => {
      const a = await created({ ...base, title: 'Café Night!' });
      const b = await created({ ...base, title: 'Cafe night' });
      const c = await created({ ...base, title: 'CAFE -- NIGHT' });
      assert.deepEqual([a.slug, b.slug, c.slug], ['cafe-night', 'cafe-night-2', 'cafe-night-3']);
      assert.equal((await created({ ...base, slug: 'my-own-slug' })).slug, 'my-own-slug');
      refusal(await post({ ...base, slug: 'taken' }), /^body\.slug: .*already/);
      refusal(await post({ ...base, slug: 'Not A Slug' }), /slug/);
    });

    it('refuses end_date before start_date, naming body.end_date; accepts an equal end', async () => {
      refusal(await post({ ...base, end_date: '2026-12-01T17:59:59Z' }), /^body\.end_date: /);
      assert.equal((await post({ ...base, end_date: '2026-12-01T18:00:00Z' })).statusCode, 201);
    });

    it('requires title and start_date and refuses draft, unknown fields and malformed dates', async () => {
      refusal(await post({ start_date: base.start_date }), /title/);
      refusal(await post({ title: 'x' }), /start_date/);
      refusal(await post({ ...base, status: 'draft' }), /status/);
      refusal(await post({ ...base, colour: 'red' }), /colour/);
      refusal(await post({ ...base, start_date: 'tomorrow' }), /start_date/);
    });

    it('answers a create with hosts, speakers, tags and mentions exactly as GET shows the event afterwards', async () => {
      // The answer is rendered from the row the create wrote, not read back: it must not differ.
      const blocks = [
        {
          type: 'rich_text',
          block_id: 'b',
          elements: [
            {
              type: 'rich_text_section',
              elements: [
                { type: 'user', user_id: 'U00000002' },
                { type: 'channel', channel_id: 'C00000001' },
              ],
            },
          ],
        },
      ];
      const res = await post({
        ...base,
        end_date: '2026-12-01T20:00:00Z',
        hosts: [{ chat_user_id: 'U00000001' }],
        speakers: [{ email: 'person3@example.org' }],
        tags: ['tag-ai'],
        description_chat_blocks: blocks,
        recap_text: 'Recap',
        location: 'Berlin',
      });
      assert.equal(res.statusCode, 201, res.body);
      const body = res.json<Answer>();
      assert.equal(body.data.hosts.length, 1);
      assert.equal(body.data.speakers.length, 1);
      assert.equal(body.data.tags.length, 1);
      assert.deepEqual(body, (await get(body.data.id)).json());
    });

    it('takes description as blocks or as text, never both; text becomes one rich text block', async () => {
      const fromText = await created({ ...base, description_text: 'Line one\nLine two', recap_text: 'Recap' });
      assert.deepEqual(fromText.description_chat_blocks, [
        {
          type: 'rich_text',
          block_id: 'text',
          elements: [{ type: 'rich_text_section', elements: [{ type: 'text', text: 'Line one\nLine two' }] }],
        },
      ]);
      assert.equal((fromText.recap_chat_blocks as Json[]).length, 1);
      const blocks = [
        { type: 'rich_text', block_id: 'b', elements: [{ type: 'rich_text_section', elements: [{ type: 'user', user_id: 'U00000002' }] }] },
      ];
      const fromBlocks = await created({ ...base, description_chat_blocks: blocks });
      assert.deepEqual(fromBlocks.description_chat_blocks, blocks);
      assert.equal(((fromBlocks.description_chat_blocks_references as Json).mentioned_chat_users as Json[]).length, 1);
      refusal(await post({ ...base, description_text: 'a', description_chat_blocks: blocks }), /^body\.description_text: /);
      refusal(await post({ ...base, recap_text: 'a', recap_chat_blocks: blocks }), /^body\.recap_text: /);
      refusal(await post({ ...base, description_chat_blocks: [{ elements: [] }] }), /^body\.description_chat_blocks/);
    });

    it('resolves hosts and speakers by chat_user_id, email or profile_id, in order; unknown or ambiguous ones are 400 naming the entry', async () => {
      const data = await created({
        ...base,
        hosts: [{ email: 'PERSON2@example.org' }, { chat_user_id: 'U00000001' }],
        speakers: [{ profile_id: uuid(3, 1).toUpperCase() }],
      });
      assert.deepEqual(
        data.hosts.map((h) => h.profile_id),
        [uuid(2, 1), uuid(1, 1)],
      );
      assert.deepEqual(
        data.speakers.map((s) => s.profile_id),
        [uuid(3, 1)],
      );
      refusal(
        await post({ ...base, hosts: [{ email: 'person1@example.org' }, { email: 'nobody@example.org' }] }),
        /^body\.hosts\[1\]: no profile/,
      );
      refusal(
        await post({ ...base, speakers: [{ chat_user_id: 'U1', email: 'person1@example.org' }] }),
        /^body\.speakers\[0\]: must hold exactly one/,
      );
      refusal(
        await post({ ...base, hosts: [{ email: 'person1@example.org' }, { profile_id: uuid(1, 1) }] }),
        /^body\.hosts\[1\]: duplicate/,
      );
    });

    it('tags are named by the id of a tag the community has; the record is the stored one; unknown ids are 400 naming the entry', async () => {
      const data = await created({ ...base, tags: ['tag-ai'] });
      assert.deepEqual(data.tags, [{ id: 'tag-ai', created_at: '2026-01-02T00:00:00+00:00', tag_group_id: 'topics', label: 'AI' }]);
      refusal(await post({ ...base, tags: ['tag-web', 'tag-nope'] }), /^body\.tags\[1\]: no tag "tag-nope"/);
      const filtered = await ctx().request({
        method: 'GET',
        url: '/admin/v0/calendar_events?time_filter=all&tag_ids=tag-ai&per_page=50',
        headers: auth,
      });
      assert.ok(filtered.json<{ data: { records: { id: string }[] } }>().data.records.some((r) => r.id === data.id));
    });

    it("a tag's record is that of the most recently updated event carrying it: as the import, a PATCH and a re-import leave it", async () => {
      const t = ctx();
      const other = await t.community();
      const carrying = (n: number, label: string, updatedAt: string) =>
        event(n, '2020-03-01T10:00:00Z', null, { tags: [{ id: 'tag-x', label }], updated_at: updatedAt });
      await importInto(t, other.id, {
        calendar_events: [carrying(11, 'Older', '2020-01-01T00:00:00Z'), carrying(12, 'Newer', '2020-02-01T00:00:00Z')],
      });
      const request = (method: 'POST' | 'PATCH', url: string, payload: Json) => t.request({ method, url, headers: other.auth, payload });
      const probe = (await request('POST', '/admin/v0/calendar_events', base)).json<Answer>().data.id;
      // The probe takes the tag and gives it back, so that its own copy never counts.
      const recordOfTag = async () => {
        const tagged = await request('PATCH', `/admin/v0/calendar_events/${probe}`, { tags: ['tag-x'] });
        assert.equal(tagged.statusCode, 200, tagged.body);
        assert.equal((await request('PATCH', `/admin/v0/calendar_events/${probe}`, { tags: [] })).statusCode, 200);
        return tagged.json<Answer>().data.tags[0]?.label;
      };
      assert.equal(await recordOfTag(), 'Newer');
      assert.equal((await request('PATCH', `/admin/v0/calendar_events/${eventId(11)}`, { title: 'Touched' })).statusCode, 200);
      assert.equal(await recordOfTag(), 'Older', 'the patched event is now the most recently updated');
      await importInto(t, other.id, { calendar_events: [{ ...carrying(11, 'Older', '2020-01-01T00:00:00Z'), title: 'Touched' }] });
      assert.equal(await recordOfTag(), 'Newer', 'the re-import set it back to its January update');
    });

    it('PATCH changes only what the body holds, null clears, 404 for an unknown or foreign event; GET shows it at once', async () => {
      const t = ctx();
      const original = await created({
        ...base,
        location: 'Berlin',
        link: 'https://example.org/a',
        end_date: '2026-12-01T20:00:00Z',
        tags: ['tag-ai'],
        hosts: [{ chat_user_id: 'U00000001' }],
      });
      await get(original.id); // cached now
      t.clock.advance(60_000);
      const res = await patch(original.id, { title: 'Launch party, moved', link: null, end_date: null, status: 'needs_approval' });
      assert.equal(res.statusCode, 200, res.body);
      const data = res.json<Answer>().data;
      assert.equal(data.title, 'Launch party, moved');
      assert.equal(data.location, 'Berlin');
      assert.notEqual(data.link, 'https://example.org/a');
      assert.ok(data.end_date === '' || data.end_date === null);
      assert.equal(data.status, 'needs_approval');
      assert.equal(data.slug, original.slug, 'the slug does not follow a new title');
      assert.deepEqual(data.tags, original.tags);
      assert.deepEqual(data.hosts, original.hosts);
      assert.equal(data.created_at, original.created_at);
      assert.equal(data.updated_at, formatJsonTimestamp(microsFromMillis(t.clock.now())));
      assert.deepEqual((await get(original.id)).json<Answer>().data, data);
      assert.equal((await patch(eventId(999), { title: 'x' })).statusCode, 404);
      const other = await t.community();
      const foreign = await t.request({
        method: 'PATCH',
        url: `/admin/v0/calendar_events/${original.id}`,
        headers: other.auth,
        payload: { title: 'x' },
      });
      assert.equal(foreign.statusCode, 404);
      refusal(await patch(original.id, { end_date: '2026-11-30T00:00:00Z' }), /^body\.end_date: /);
      refusal(await patch(original.id, { status: 'draft' }), /status/);
      refusal(await patch(original.id, { tags: ['tag-nope'] }), /^body\.tags\[0\]/);
    });

    it('PATCH of an imported draft event can publish it; its attendees and other fields stay', async () => {
      const t = ctx();
      await importInto(t, communityId, {
        calendar_events: [
          event(50, '2026-12-05T10:00:00Z', null, { status: 'draft', attendees: [{ profile_id: uuid(1, 1) }], location: 'Paris' }),
        ],
      });
      const res = await patch(eventId(50), { status: 'published' });
      assert.equal(res.statusCode, 200, res.body);
      const data = res.json<Answer>().data;
      assert.equal(data.status, 'published');
      assert.equal(data.attendees_count, 1);
      assert.equal(data.location, 'Paris');
    });

    it('honours Idempotency-Key: a repeat replays the same event and creates nothing more', async () => {
      const key = randomUUID();
      const first = await post({ ...base, title: 'Idempotent' }, { 'idempotency-key': key });
      const second = await post({ ...base, title: 'Idempotent' }, { 'idempotency-key': key });
      assert.equal(first.statusCode, 201);
      assert.equal(second.statusCode, 201);
      assert.equal(second.headers['x-idempotent-replayed'], 'true');
      assert.equal(second.body, first.body);
      const third = await post({ ...base, title: 'Idempotent' });
      assert.equal(third.json<Answer>().data.slug, 'idempotent-2', 'exactly one event was made under the key');
    });

    it('needs calendar_events:write', async () => {
      const t = ctx();
      const reader = await createApiKey(
        { database: t.database, clock: t.clock, communityId },
        { label: 'reader', permissions: new Set(['calendar_events:read']) },
      );
      const headers = { authorization: `Bearer ${reader.key}` };
      for (const res of [await post(base, headers), await patch(eventId(1), { title: 'x' }, headers)]) {
        assert.equal(res.statusCode, 403);
        assert.equal(res.json<Answer>().error?.code, 'insufficient_scope');
        assert.match(res.json<Answer>().error?.message ?? '', /calendar_events:write/);
      }
    });

    it('publish_to_chat_channels: announces in each channel, records channel, permalink and bound feed (or null); a failing channel is named and does not undo the event', async () => {
      const t = ctx();
      const noChat = await post({ ...base, publish_to_chat_channels: ['C00000001'] });
      assert.equal(noChat.statusCode, 400);
      assert.equal(noChat.json<Answer>().error?.code, 'chat_admin_not_configured');
      await connectToFake(t, fake, communityId);
      fake.failChannel('C0LOCKED', 'not_in_channel');
      const res = await post({ ...base, title: 'Announced', publish_to_chat_channels: ['C00000001', 'C0LOCKED', 'C0NOFEED'] });
      assert.equal(res.statusCode, 201, res.body);
      const body = res.json<Answer>();
      assert.match(body.message ?? '', /C0LOCKED \(not_in_channel/);
      assert.doesNotMatch(body.message ?? '', /C00000001|C0NOFEED/);
      assert.deepEqual(
        fake.messages.map((m) => m.channel),
        ['C00000001', 'C0NOFEED'],
      );
      assert.match(fake.messages[0]?.text ?? '', /Announced/);
      assert.deepEqual(body.data.published_to, [
        {
          chat_channel_id: 'C00000001',
          chat_message_permalink: `https://fake.slack.test/archives/C00000001/p${fake.messages[0]?.ts.replace('.', '')}`,
          feed_id: uuid(1, 2),
        },
        {
          chat_channel_id: 'C0NOFEED',
          chat_message_permalink: `https://fake.slack.test/archives/C0NOFEED/p${fake.messages[1]?.ts.replace('.', '')}`,
          feed_id: null,
        },
      ]);
      const byFeed = await t.request({
        method: 'GET',
        url: `/admin/v0/calendar_events?time_filter=all&feed_id=${uuid(1, 2)}&per_page=50`,
        headers: auth,
      });
      assert.ok(byFeed.json<{ data: { records: { id: string }[] } }>().data.records.some((r) => r.id === body.data.id));
      // PATCH announces only in channels not yet published to, and keeps the earlier entries.
      fake.messages.length = 0;
      const again = await patch(body.data.id, { publish_to_chat_channels: ['C00000001', 'C0OTHER'] });
      assert.equal(again.statusCode, 200, again.body);
      assert.deepEqual(
        fake.messages.map((m) => m.channel),
        ['C0OTHER'],
      );
      assert.deepEqual(
        again.json<Answer>().data.published_to.map((p) => p.chat_channel_id),
        ['C00000001', 'C0NOFEED', 'C0OTHER'],
      );
    });
  },
  fakeChatOptions(fake),
);
