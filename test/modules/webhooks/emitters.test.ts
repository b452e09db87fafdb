import assert from 'node:assert/strict';
import { after, before, beforeEach, it } from 'node:test';
import { sql } from 'kysely';
import { DeliveryWorker } from '../../../src/modules/webhooks/worker/deliveries.js';
import { durationMs } from '../../../src/shared/time.js';
import { describeEachEngine } from '../../support/harness.js';
import { WebhookReceiver } from '../../support/webhook-receiver.js';
import { event, eventId, importInto, profile, uuid } from '../calendar-events/fixtures.js';
import { collectingLog } from './webhook-test-kit.js';

describeEachEngine(
  'webhook events of the API writers',
  (ctx) => {
    const receiver = new WebhookReceiver();
    let worker: DeliveryWorker;
    before(() => receiver.start());
    after(() => receiver.stop());
    beforeEach(() => {
      receiver.reset();
      ctx().clock.set(Date.now());
      worker = new DeliveryWorker({
        database: ctx().database,
        clock: ctx().clock,
        log: collectingLog(),
        allowPrivate: true,
        timeoutMs: durationMs(2000),
      });
    });

    /** A community with events (one triggering webhooks), profiles and a group, and an endpoint at the receiver. */
    async function seeded() {
      const community = await ctx().community();
      await importInto(ctx(), community.id, {
        profiles: [profile(1), profile(2), profile(3)],
        calendar_events: [
          event(1, '2026-12-01T10:00:00Z', 3_600_000, { triggers_webhooks: true, webhook_custom_metadata: 'crm=fall-2026' }),
          event(2, '2026-12-02T10:00:00Z', 3_600_000, { triggers_webhooks: false }),
        ],
        groups: [{ id: 'grp-1', name: 'Group one' }],
      });
      const created = await ctx().request({
        method: 'POST',
        url: '/admin/v0/webhook_endpoints',
        headers: community.auth,
        payload: { url: receiver.url },
      });
      assert.equal(created.statusCode, 201, created.body);
      receiver.secrets = [created.json<{ data: { secret: string } }>().data.secret];
      return community;
    }

    const sent = async () => {
      await worker.tick();
      const got = receiver.received.map((r) => {
        assert.equal(r.verifiedWith.length, 1, `${r.payload.type} verified`);
        return r.payload;
      });
      receiver.received.length = 0;
      return got;
    };

    /** POST /members: adds the member, or updates the one with that e-mail. */
    const putMember = (auth: { authorization: string }, email: string, fullName: string) =>
      ctx().request({ method: 'POST', url: '/admin/v0/members', headers: auth, payload: { email, full_name: fullName } });

    it('members: created, updated, deactivated, each with the member as the API answers it', async () => {
      const { auth } = await seeded();
      const added = await putMember(auth, 'Ada@Example.org', 'Ada Lovelace');
      assert.equal(added.statusCode, 201, added.body);
      const member = added.json<{ data: { member: Record<string, unknown> } }>().data.member;
      const [created] = await sent();
      assert.equal(created?.type, 'member.created');
      assert.deepEqual(created?.data, member);
      assert.equal((await putMember(auth, 'ada@example.org', 'Ada King')).statusCode, 200);
      const [updated] = await sent();
      assert.equal(updated?.type, 'member.updated');
      assert.equal(updated?.data.full_name, 'Ada King');
      const deactivated = await ctx().request({ method: 'POST', url: `/admin/v0/members/${member.id}/deactivate`, headers: auth });
      assert.equal(deactivated.statusCode, 200, deactivated.body);
      const [gone] = await sent();
      assert.equal(gone?.type, 'member.deactivated');
      assert.equal(gone?.data.id, member.id);
      await ctx().request({ method: 'POST', url: `/admin/v0/members/${member.id}/deactivate`, headers: auth });
      assert.deepEqual(await sent(), [], 'an already deactivated member sends nothing');
    });

    it('no change without its webhook: a change whose outbox row cannot be written is not made, and answers an error', async () => {
      const { auth } = await seeded();
      const db = ctx().database.db;
      // The outbox refuses every row (on PostgreSQL the row goes with the commit: that message fails).
      if (ctx().engine === 'sqlite') {
        await sql`create trigger outbox_refuses before insert on webhook_outbox begin select raise(abort, 'outbox refuses'); end`.execute(
          db,
        );
      } else {
        await sql`create function outbox_refuses() returns trigger language plpgsql as $$ begin raise exception 'outbox refuses'; end $$`.execute(
          db,
        );
        await sql`create trigger outbox_refuses before insert on webhook_outbox for each row execute function outbox_refuses()`.execute(db);
      }
      const attend = (body: Record<string, unknown>) =>
        ctx().request({ method: 'PATCH', url: `/admin/v0/calendar_events/${eventId(1)}/attendees`, headers: auth, payload: body });
      const attendeesCount = async () =>
        (await ctx().request({ method: 'GET', url: `/admin/v0/calendar_events/${eventId(1)}`, headers: auth })).json<{
          data: { attendees_count: number };
        }>().data.attendees_count;
      try {
        const refused = await attend({ user: { chat_user_id: 'U00000001' }, personal_join_link: 'https://meet.example.org/j/1' });
        assert.equal(refused.statusCode, 500, refused.body);
        assert.equal(refused.json<{ success: boolean; error: { code: string } }>().error.code, 'internal_error');
        assert.equal(await attendeesCount(), 0, 'no attendee added');
        const member = await putMember(auth, 'x@example.org', 'X Ample');
        assert.equal(member.statusCode, 500, member.body);
      } finally {
        await sql`drop trigger outbox_refuses${ctx().engine === 'sqlite' ? sql`` : sql` on webhook_outbox`}`.execute(db);
      }
      assert.deepEqual(await sent(), [], 'nothing was recorded');
      // The same requests, once the outbox takes rows again: made, and each sent once.
      assert.equal(
        (await attend({ user: { chat_user_id: 'U00000001' }, personal_join_link: 'https://meet.example.org/j/1' })).statusCode,
        200,
      );
      assert.equal(await attendeesCount(), 1);
      const [registered] = await sent();
      assert.equal(registered?.type, 'calendar_event.registration.created');
      assert.equal((registered?.data.attendee as Record<string, unknown>).personal_join_link, 'https://meet.example.org/j/1');
      const member = await putMember(auth, 'x@example.org', 'X Ample');
      assert.equal(member.statusCode, 201, 'created now: the refused add left no member');
      assert.deepEqual(
        (await sent()).map((event) => event.type),
        ['member.created'],
      );
    });

    it('group.member_added once per new membership', async () => {
      const { auth } = await seeded();
      const add = () =>
        ctx().request({
          method: 'POST',
          url: '/admin/v0/groups/grp-1/members',
          headers: auth,
          payload: { user: { chat_user_id: 'U00000002' } },
        });
      assert.equal((await add()).statusCode, 200);
      const [added] = await sent();
      assert.equal(added?.type, 'group.member_added');
      assert.deepEqual(
        { group_id: added?.data.group_id, profile_id: added?.data.profile_id },
        { group_id: 'grp-1', profile_id: uuid(2, 1) },
      );
      // The instant of the change (stored in µs) spelled as the payload's timestamp is (ISO, ms).
      assert.equal(added?.data.added_at, new Date(ctx().clock.now()).toISOString());
      assert.equal(added?.data.added_at, added?.timestamp);
      await add();
      assert.deepEqual(await sent(), []);
    });

    it('registrations and deletion of an event that triggers webhooks carry its custom metadata; others send nothing', async () => {
      const { auth } = await seeded();
      const attend = (n: number, body: Record<string, unknown>) =>
        ctx().request({ method: 'PATCH', url: `/admin/v0/calendar_events/${eventId(n)}/attendees`, headers: auth, payload: body });
      assert.equal((await attend(1, { user: { chat_user_id: 'U00000001' } })).statusCode, 200);
      const [registered] = await sent();
      assert.equal(registered?.type, 'calendar_event.registration.created');
      const calendarEvent = registered?.data.calendar_event as Record<string, unknown>;
      assert.equal(calendarEvent.id, eventId(1));
      assert.equal(calendarEvent.webhook_custom_metadata, 'crm=fall-2026');
      assert.equal(calendarEvent.attendees_count, 1);
      assert.deepEqual(registered?.data.attendee, { profile_id: uuid(1, 1), chat_user_id: 'U00000001', personal_join_link: null });
      await attend(1, { user: { chat_user_id: 'U00000001' }, personal_join_link: 'https://meet.example.org/j/1' });
      await worker.tick();
      const linkChangedBody = receiver.received[0]?.body;
      const [linkChanged] = await sent();
      // The event's record is the API's own answer, byte for byte (written into the payload as is).
      const answered = (await ctx().request({ method: 'GET', url: `/admin/v0/calendar_events/${eventId(1)}`, headers: auth })).body;
      const recordText = answered.slice('{"success":true,"data":'.length, -1);
      assert.ok(linkChangedBody?.includes(`"calendar_event":${recordText},"attendee":`), 'the event record as GET answers it');
      assert.equal(linkChanged?.type, 'calendar_event.registration.updated');
      assert.equal((linkChanged?.data.attendee as Record<string, unknown>).personal_join_link, 'https://meet.example.org/j/1');
      assert.equal((linkChanged?.data.calendar_event as Record<string, unknown>).webhook_custom_metadata, 'crm=fall-2026');
      await attend(1, { user: { chat_user_id: 'U00000001' }, personal_join_link: 'https://meet.example.org/j/1' });
      assert.deepEqual(await sent(), [], 'the same link again changes nothing and sends nothing');
      await attend(2, { user: { chat_user_id: 'U00000001' } });
      assert.equal(
        (await ctx().request({ method: 'DELETE', url: `/admin/v0/calendar_events/${eventId(2)}`, headers: auth })).statusCode,
        200,
      );
      assert.deepEqual(await sent(), [], 'event 2 does not trigger webhooks');
      assert.equal(
        (await ctx().request({ method: 'DELETE', url: `/admin/v0/calendar_events/${eventId(1)}`, headers: auth })).statusCode,
        200,
      );
      const [deleted] = await sent();
      assert.equal(deleted?.type, 'calendar_event.deleted');
      assert.equal(deleted?.data.id, eventId(1));
      assert.equal(deleted?.data.webhook_custom_metadata, 'crm=fall-2026');
    });
  },
  { env: { WEBHOOK_ALLOW_PRIVATE: 'true' } },
);
