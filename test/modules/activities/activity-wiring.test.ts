/**
 * The writers merged beside the activity log (issue 38), each over its public surface: exactly one
 * record with its action, actor, target (and changes), and none when the request is refused.
 * Webhook PATCH and redeliver_failed, the console's token exchange, API keys and awards over the
 * API, a console session's write, calendar feeds (API and CLI), `webhook update`.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { createApiKey } from '../../../src/modules/api-keys/api-keys.commands.js';
import { createConsoleLink } from '../../../src/modules/console-sessions/console-sessions.commands.js';
import { DeliveryWorker } from '../../../src/modules/webhooks/worker/deliveries.js';
import { permissions } from '../../../src/shared/permissions.js';
import { durationMs } from '../../../src/shared/time.js';
import { parseJsonOutput, runCli } from '../../support/cli.js';
import { describeEachEngine, type TestApp } from '../../support/harness.js';
import { collectingLog, emitRoute } from '../webhooks/webhook-test-kit.js';
import { type Activity, type Auth, listActivities, onlyOne } from './activity-kit.js';

const route = emitRoute();

/** The community's records newest first, but the harness's own key. */
async function records(t: TestApp, auth: Auth, action?: string): Promise<Activity[]> {
  return (await listActivities(t, auth, action)).filter((r) => !(r.action === 'api_key.created' && r.actor.type === 'system'));
}

/** The one record of `action` (fails when there are none or several). */
const only = async (t: TestApp, auth: Auth, action: string): Promise<Activity> => onlyOne(await records(t, auth, action), action);

describeEachEngine(
  'activity records of the writers merged beside the log',
  (ctx) => {
    async function endpoint(t: TestApp, auth: Auth) {
      const res = await t.request({
        method: 'POST',
        url: '/admin/v0/webhook_endpoints',
        headers: auth,
        payload: { url: 'http://127.0.0.1:9/hook', events: ['member.created'] },
      });
      assert.equal(res.statusCode, 201, res.body);
      return res.json<{ data: { id: string; secret: string } }>().data;
    }

    it('PATCH /webhook_endpoints/{id} records webhook_endpoint.updated once with the fields changed (never the secret); a refused or empty change none', async () => {
      const t = ctx();
      const c = await t.community();
      const { id, secret } = await endpoint(t, c.auth);
      const refused = await t.request({
        method: 'PATCH',
        url: `/admin/v0/webhook_endpoints/${id}`,
        headers: c.auth,
        payload: { url: 'ftp://example.org/x' },
      });
      assert.equal(refused.statusCode, 400, refused.body);
      const same = await t.request({
        method: 'PATCH',
        url: `/admin/v0/webhook_endpoints/${id}`,
        headers: c.auth,
        payload: { enabled: true },
      });
      assert.equal(same.statusCode, 200, same.body);
      assert.equal((await records(t, c.auth, 'webhook_endpoint.updated')).length, 0, 'nothing changed, nothing recorded');

      const res = await t.request({
        method: 'PATCH',
        url: `/admin/v0/webhook_endpoints/${id}`,
        headers: { ...c.auth, 'x-request-id': 'patch-1' },
        payload: { url: 'http://127.0.0.1:9/other', events: ['member.created', 'member.updated'], enabled: false },
      });
      assert.equal(res.statusCode, 200, res.body);
      const record = await only(t, c.auth, 'webhook_endpoint.updated');
      assert.deepEqual(record.actor, { type: 'api_key', id: c.keyId, label: 'test' });
      assert.deepEqual(record.target, { type: 'webhook_endpoint', id, name: 'http://127.0.0.1:9/other' });
      assert.equal(record.context?.request_id, 'patch-1');
      assert.deepEqual(record.changes, {
        url: ['http://127.0.0.1:9/hook', 'http://127.0.0.1:9/other'],
        events: [['member.created'], ['member.created', 'member.updated']],
        disabled: [false, true],
      });
      assert.equal(JSON.stringify(record).includes(secret), false);
    });

    it('POST /webhook_endpoints/{id}/redeliver_failed records one webhook_delivery.redelivered with its count; a disabled endpoint is refused and records none', async () => {
      const t = ctx();
      const c = await t.community();
      const { id } = await endpoint(t, c.auth);
      const emitted = await t.request({
        method: 'POST',
        url: '/admin/v0/test/webhook-events',
        headers: c.auth,
        payload: { events: [0, 1].map((i) => ({ type: 'member.created', data: { id: `m-${i}` } })) },
      });
      assert.equal(emitted.statusCode, 200, emitted.body);
      // Disabled: the worker fails the pending deliveries unsent.
      const patch = (enabled: boolean) =>
        t.request({ method: 'PATCH', url: `/admin/v0/webhook_endpoints/${id}`, headers: c.auth, payload: { enabled } });
      assert.equal((await patch(false)).statusCode, 200);
      const worker = new DeliveryWorker({
        database: t.database,
        clock: t.clock,
        log: collectingLog(),
        allowPrivate: true,
        timeoutMs: durationMs(1000),
        random: () => 0.5,
      });
      for (let i = 0; i < 10 && (await worker.tick()) > 0; i++);
      const since = '2000-01-01T00:00:00Z';
      const redeliver = () =>
        t.request({ method: 'POST', url: `/admin/v0/webhook_endpoints/${id}/redeliver_failed`, headers: c.auth, payload: { since } });
      const refused = await redeliver();
      assert.equal(refused.statusCode, 409, refused.body);
      assert.equal((await records(t, c.auth, 'webhook_delivery.redelivered')).length, 0);

      assert.equal((await patch(true)).statusCode, 200);
      const res = await redeliver();
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json<{ data: { queued: number } }>().data.queued, 2);
      const record = await only(t, c.auth, 'webhook_delivery.redelivered');
      assert.deepEqual(record.actor, { type: 'api_key', id: c.keyId, label: 'test' });
      assert.deepEqual(record.target, { type: 'webhook_endpoint', id, name: 'http://127.0.0.1:9/hook' });
      assert.equal(record.metadata?.deliveries, 2);
      assert.equal(record.metadata?.since, '2000-01-01T00:00:00.000Z');
    });

    it("the console's token exchange records console.signed_in (the new session as actor), a reused link console.link_refused, an unknown token nothing; the session's writes are the console's", async () => {
      const t = ctx();
      const c = await t.community();
      const link = await createConsoleLink({ database: t.database, clock: t.clock, communityId: c.id }, durationMs(600_000));
      const exchange = (token: string) =>
        t.request({
          method: 'POST',
          url: '/admin/v0/console/sessions',
          headers: { 'x-request-id': 'sign-in-1', 'user-agent': 'console-test' },
          payload: { token },
        });
      const unknown = await exchange('not-a-token-of-anything-at-all-000000000');
      assert.notEqual(unknown.statusCode, 200, unknown.body);
      assert.deepEqual(await records(t, c.auth), [], 'an unknown token names no community: nothing recorded');

      const signedIn = await exchange(link.token);
      assert.equal(signedIn.statusCode, 201, signedIn.body);
      const session = signedIn.json<{ data: { key: string; key_id: string } }>().data;
      const record = await only(t, c.auth, 'console.signed_in');
      assert.deepEqual(record.actor, { type: 'console', id: session.key_id, label: 'Console session' });
      assert.deepEqual(record.target, { type: 'api_key', id: session.key_id, name: 'Console session' });
      assert.equal(record.context?.request_id, 'sign-in-1');
      assert.equal(record.context?.user_agent, 'console-test');
      assert.equal(JSON.stringify(record).includes(session.key), false);

      const again = await exchange(link.token);
      assert.equal(again.statusCode, unknown.statusCode, again.body);
      const refusal = await only(t, c.auth, 'console.link_refused');
      assert.deepEqual(refusal.actor, { type: 'system', id: null, label: 'console sign-in' });
      assert.deepEqual(refusal.target, { type: 'community', id: null, name: null });
      assert.deepEqual(refusal.metadata, { reason: 'used' });
      assert.equal(refusal.context?.request_id, 'sign-in-1');
      assert.equal((await records(t, c.auth, 'console.signed_in')).length, 1);

      const member = await t.request({
        method: 'POST',
        url: '/admin/v0/members',
        headers: { authorization: `Bearer ${session.key}` },
        payload: { email: 'ada@example.com', full_name: 'Ada' },
      });
      assert.equal(member.statusCode, 201, member.body);
      const created = await only(t, c.auth, 'member.created');
      assert.deepEqual(created.actor, { type: 'console', id: session.key_id, label: 'Console session' });
    });

    it('an expired console link records console.link_refused with the reason expired, and signs nobody in', async () => {
      const t = ctx();
      const c = await t.community();
      const link = await createConsoleLink({ database: t.database, clock: t.clock, communityId: c.id }, durationMs(60_000));
      t.clock.set(t.clock.now() + 120_000);
      const res = await t.request({ method: 'POST', url: '/admin/v0/console/sessions', payload: { token: link.token } });
      assert.equal(res.statusCode, 401, res.body);
      assert.deepEqual((await only(t, c.auth, 'console.link_refused')).metadata, { reason: 'expired' });
      assert.equal((await records(t, c.auth, 'console.signed_in')).length, 0);
    });

    it('API keys created, rotated and revoked over the API and an award created over the API name the calling key; a refused create records none', async () => {
      const t = ctx();
      const community = await t.community();
      // The harness's key holds every permission but api_keys:write: an admin key does.
      const admin = await createApiKey(
        { database: t.database, clock: t.clock, communityId: community.id },
        { label: 'admin', permissions: new Set(permissions) },
      );
      const c = { ...community, keyId: admin.id, auth: { authorization: `Bearer ${admin.key}` } };
      const bad = await t.request({ method: 'POST', url: '/admin/v0/api_keys', headers: c.auth, payload: { label: 'x', permissions: [] } });
      assert.equal(bad.statusCode, 400, bad.body);
      assert.equal((await records(t, c.auth, 'api_key.created')).length, 0);

      const created = await t.request({
        method: 'POST',
        url: '/admin/v0/api_keys',
        headers: c.auth,
        payload: { label: 'reporting', permissions: ['members:read'] },
      });
      assert.equal(created.statusCode, 201, created.body);
      const key = created.json<{ data: { id: string; key: string } }>().data;
      const record = await only(t, c.auth, 'api_key.created');
      assert.deepEqual(record.actor, { type: 'api_key', id: c.keyId, label: 'admin' });
      assert.deepEqual(record.target, { type: 'api_key', id: key.id, name: 'reporting' });
      assert.equal(JSON.stringify(record).includes(key.key), false);

      const rotated = await t.request({ method: 'POST', url: `/admin/v0/api_keys/${key.id}/rotate`, headers: c.auth, payload: {} });
      assert.equal(rotated.statusCode, 200, rotated.body);
      assert.deepEqual((await only(t, c.auth, 'api_key.rotated')).actor, { type: 'api_key', id: c.keyId, label: 'admin' });
      const revoked = await t.request({ method: 'DELETE', url: `/admin/v0/api_keys/${key.id}`, headers: c.auth });
      assert.equal(revoked.statusCode, 200, revoked.body);
      assert.deepEqual((await only(t, c.auth, 'api_key.revoked')).actor, { type: 'api_key', id: c.keyId, label: 'admin' });

      const award = await t.request({ method: 'POST', url: '/admin/v0/awards', headers: c.auth, payload: { name: 'Helper' } });
      assert.equal(award.statusCode, 201, award.body);
      const awardRecord = await only(t, c.auth, 'award.created');
      assert.deepEqual(awardRecord.actor, { type: 'api_key', id: c.keyId, label: 'admin' });
      const duplicate = await t.request({ method: 'POST', url: '/admin/v0/awards', headers: c.auth, payload: { name: 'Helper' } });
      assert.notEqual(duplicate.statusCode, 201, duplicate.body);
      assert.equal((await records(t, c.auth, 'award.created')).length, 1);
    });

    it('calendar feeds over the API: created and revoked once each (member feeds too), never the token; a second revoke records none', async () => {
      const t = ctx();
      const c = await t.community();
      const created = await t.request({ method: 'POST', url: '/admin/v0/calendar_feeds', headers: c.auth, payload: { label: 'Public' } });
      assert.equal(created.statusCode, 201, created.body);
      const feed = created.json<{ data: { id: string; url: string } }>().data;
      const token = (feed.url.split('/').pop() ?? '').replace(/\.ics$/, '');
      const record = await only(t, c.auth, 'calendar_feed.created');
      assert.deepEqual(record.actor, { type: 'api_key', id: c.keyId, label: 'test' });
      assert.deepEqual(record.target, { type: 'calendar_feed', id: feed.id, name: 'Public' });
      assert.ok(token.length > 20);
      assert.equal(JSON.stringify(record).includes(token), false);

      const revoke = () => t.request({ method: 'DELETE', url: `/admin/v0/calendar_feeds/${feed.id}`, headers: c.auth });
      assert.equal((await revoke()).statusCode, 200);
      assert.equal((await revoke()).statusCode, 404);
      const revoked = await only(t, c.auth, 'calendar_feed.revoked');
      assert.deepEqual(revoked.target, { type: 'calendar_feed', id: feed.id, name: 'Public' });
      assert.deepEqual(revoked.actor, { type: 'api_key', id: c.keyId, label: 'test' });

      const member = await t.request({
        method: 'POST',
        url: '/admin/v0/members',
        headers: c.auth,
        payload: { email: 'grace@example.com', full_name: 'Grace' },
      });
      assert.equal(member.statusCode, 201, member.body);
      const memberId = member.json<{ data: { member: { id: string } } }>().data.member.id;
      const own = () => t.request({ method: 'POST', url: `/admin/v0/members/${memberId}/calendar_feed`, headers: c.auth });
      const first = await own();
      assert.equal(first.statusCode, 201, first.body);
      assert.equal((await own()).statusCode, 200, 'the same feed again');
      const feeds = await records(t, c.auth, 'calendar_feed.created');
      assert.equal(feeds.length, 2, 'the shared feed and the member feed, once');
      assert.deepEqual(feeds[0]?.metadata, { member_id: memberId });
    });

    it('the CLI records webhook update and calendar-feed create/revoke with the operator as actor', async () => {
      const t = ctx();
      const c = await t.community();
      const { id } = await endpoint(t, c.auth);
      const env = t.testDb.env;
      const updated = await runCli(['webhook', 'update', id, '--disable', '--json'], env);
      assert.equal(updated.code, 0, updated.stderr);
      const record = await only(t, c.auth, 'webhook_endpoint.updated');
      assert.equal(record.actor.type, 'cli');
      assert.deepEqual(record.changes, { disabled: [false, true] });
      assert.equal(record.context, null);
      const refused = await runCli(['webhook', 'update', id, '--events', 'nope', '--json'], env);
      assert.notEqual(refused.code, 0);
      assert.equal((await records(t, c.auth, 'webhook_endpoint.updated')).length, 1);

      const created = await runCli(['calendar-feed', 'create', '--community', c.id, '--label', 'Ops', '--json'], env);
      assert.equal(created.code, 0, created.stderr);
      const feed = parseJsonOutput<{ id: string; url: string }>(created);
      const feedRecord = await only(t, c.auth, 'calendar_feed.created');
      assert.equal(feedRecord.actor.type, 'cli');
      assert.deepEqual(feedRecord.target, { type: 'calendar_feed', id: feed.id, name: 'Ops' });
      assert.equal((await runCli(['calendar-feed', 'revoke', feed.id], env)).code, 0);
      assert.notEqual((await runCli(['calendar-feed', 'revoke', feed.id], env)).code, 0);
      const revoked = await only(t, c.auth, 'calendar_feed.revoked');
      assert.equal(revoked.actor.type, 'cli');
    });
  },
  { beforeReady: route.register, env: { WEBHOOK_ALLOW_PRIVATE: 'true' } },
);
