/**
 * Every writer of the activity log's list, over the path that makes it (the API in process, the CLI
 * through the built bin), on both engines: exactly one record per change, with its action, actor and
 * target, and none for a refused request (issue 38, "Done when"). The writers tested elsewhere:
 * activity-log.test.ts (calendar events, members added, groups, attendees, awards assigned, API keys
 * by command), activity-wiring.test.ts (webhook PATCH and redeliver_failed, console sign-in, API keys
 * and awards over the API, calendar feeds), test/cli/activity-commands.test.ts (key commands, seed),
 * test/cli/chat-sync-commands.test.ts (feed add, chat sync), test/modules/chat-sync/sync-jobs-api.test.ts
 * (a sync job run by the worker).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import { parseJsonOutput, runCli } from '../../support/cli.js';
import { describeEachEngine, type TestApp } from '../../support/harness.js';
import { fixture, multipartBody, uploadParts } from '../../support/multipart.js';
import { emitRoute } from '../webhooks/webhook-test-kit.js';
import { type Activity, type Auth, listActivities, onlyOne } from './activity-kit.js';

const route = emitRoute();

/** The community's records of `action`, newest first. */
const records = (t: TestApp, auth: Auth, action: string): Promise<Activity[]> => listActivities(t, auth, action);

/** The one record of `action` (fails when there are none or several). */
const only = async (t: TestApp, auth: Auth, action: string): Promise<Activity> => onlyOne(await records(t, auth, action), action);

const cli = { type: 'cli', id: null, label: userInfo().username };

describeEachEngine(
  'every writer of the activity log records its change once, and a refusal none',
  (ctx) => {
    it('API: member.deactivated once (a second deactivation and an unknown member none); a refused member add none', async () => {
      const t = ctx();
      const c = await t.community('enterprise');
      const refused = await t.request({
        method: 'POST',
        url: '/admin/v0/members',
        headers: c.auth,
        payload: { email: 'not-an-email', full_name: 'X' },
      });
      assert.equal(refused.statusCode, 400, refused.body);
      assert.deepEqual(await records(t, c.auth, 'member.*'), []);
      const added = await t.request({
        method: 'POST',
        url: '/admin/v0/members',
        headers: c.auth,
        payload: { email: 'ada@example.com', full_name: 'Ada' },
      });
      assert.equal(added.statusCode, 201, added.body);
      const memberId = added.json<{ data: { member: { id: string } } }>().data.member.id;
      const deactivate = (id: string) =>
        t.request({ method: 'POST', url: `/admin/v0/members/${id}/deactivate`, headers: { ...c.auth, 'x-request-id': 'off-1' } });
      const unknown = await deactivate('00000000-0000-4000-8000-000000000000');
      assert.equal(unknown.statusCode, 404, unknown.body);
      const first = await deactivate(memberId);
      assert.equal(first.statusCode, 200, first.body);
      await deactivate(memberId);
      const record = await only(t, c.auth, 'member.deactivated');
      assert.deepEqual(record.actor, { type: 'api_key', id: c.keyId, label: 'test' });
      assert.deepEqual(record.target, { type: 'member', id: memberId, name: 'Ada' });
      assert.equal(record.context?.request_id, 'off-1');
    });

    it('API: calendar_event.updated, attendees_updated and group.member_added refused record none', async () => {
      const t = ctx();
      const c = await t.community('enterprise');
      const made = await t.request({
        method: 'POST',
        url: '/admin/v0/calendar_events',
        headers: c.auth,
        payload: { title: 'Meetup', start_date: '2026-12-01T18:00:00Z' },
      });
      assert.equal(made.statusCode, 201, made.body);
      const id = made.json<{ data: { id: string } }>().data.id;
      const badPatch = await t.request({
        method: 'PATCH',
        url: `/admin/v0/calendar_events/${id}`,
        headers: c.auth,
        payload: { start_date: 'tomorrow' },
      });
      assert.equal(badPatch.statusCode, 400, badPatch.body);
      const missingPatch = await t.request({
        method: 'PATCH',
        url: '/admin/v0/calendar_events/nope',
        headers: c.auth,
        payload: { title: 'X' },
      });
      assert.equal(missingPatch.statusCode, 404, missingPatch.body);
      const badAttendee = await t.request({
        method: 'PATCH',
        url: `/admin/v0/calendar_events/${id}/attendees`,
        headers: c.auth,
        payload: { user: {} },
      });
      assert.equal(badAttendee.statusCode, 400, badAttendee.body);
      const badGroup = await t.request({
        method: 'POST',
        url: '/admin/v0/groups/no-such-group/members',
        headers: c.auth,
        payload: { user: { profile_id: '00000000-0000-4000-8000-000000000000' } },
      });
      assert.ok(badGroup.statusCode >= 400 && badGroup.statusCode < 500, badGroup.body);
      for (const action of ['calendar_event.updated', 'calendar_event.attendees_updated', 'group.member_added'])
        assert.deepEqual(await records(t, c.auth, action), [], action);
      assert.equal((await records(t, c.auth, 'calendar_event.*')).length, 1, 'the create alone');
    });

    it('API: file.uploaded once, with its size and digest; a refused upload none', async () => {
      const t = ctx();
      const c = await t.community('enterprise');
      const upload = (bytes: Buffer, name: string, options: { size?: string } = {}) => {
        const { payload, headers } = multipartBody(uploadParts(bytes, name, options));
        return t.request({ method: 'POST', url: '/admin/v0/files', headers: { ...c.auth, ...headers }, payload });
      };
      const lying = await upload(fixture('tiny.png'), 'lying.png', { size: '5' });
      assert.equal(lying.statusCode, 400, lying.body);
      assert.deepEqual(await records(t, c.auth, 'file.*'), []);
      const stored = await upload(fixture('tiny.png'), 'tiny.png');
      assert.equal(stored.statusCode, 201, stored.body);
      const fileId = stored.json<{ data: { id: string } }>().data.id;
      const record = await only(t, c.auth, 'file.uploaded');
      assert.deepEqual(record.actor, { type: 'api_key', id: c.keyId, label: 'test' });
      assert.equal(record.target.type, 'file');
      assert.equal(record.target.id, fileId);
      assert.equal(record.metadata?.size, fixture('tiny.png').length);
    });

    it('API: webhook_endpoint.created and .deleted once each, webhook_delivery.redelivered of one delivery once; refusals none', async () => {
      const t = ctx();
      const c = await t.community('enterprise');
      const bad = await t.request({
        method: 'POST',
        url: '/admin/v0/webhook_endpoints',
        headers: c.auth,
        payload: { url: 'ftp://example.org/x' },
      });
      assert.equal(bad.statusCode, 400, bad.body);
      assert.deepEqual(await records(t, c.auth, 'webhook_endpoint.*'), []);
      const made = await t.request({
        method: 'POST',
        url: '/admin/v0/webhook_endpoints',
        headers: c.auth,
        payload: { url: 'http://127.0.0.1:9/hook', events: ['member.created'] },
      });
      assert.equal(made.statusCode, 201, made.body);
      const { id, secret } = made.json<{ data: { id: string; secret: string } }>().data;
      const created = await only(t, c.auth, 'webhook_endpoint.created');
      assert.deepEqual(created.actor, { type: 'api_key', id: c.keyId, label: 'test' });
      assert.deepEqual(created.target, { type: 'webhook_endpoint', id, name: 'http://127.0.0.1:9/hook' });
      assert.equal(JSON.stringify(created).includes(secret), false, 'never the secret');

      const emitted = await t.request({
        method: 'POST',
        url: '/admin/v0/test/webhook-events',
        headers: c.auth,
        payload: { events: [{ type: 'member.created', data: { id: 'm-1' } }] },
      });
      assert.equal(emitted.statusCode, 200, emitted.body);
      const deliveries = await t.request({ method: 'GET', url: `/admin/v0/webhook_endpoints/${id}/deliveries`, headers: c.auth });
      assert.equal(deliveries.statusCode, 200, deliveries.body);
      const deliveryId = deliveries.json<{ data: { records: { id: string }[] } }>().data.records[0]?.id ?? '';
      const redeliver = (delivery: string) =>
        t.request({ method: 'POST', url: `/admin/v0/webhook_deliveries/${delivery}/redeliver`, headers: c.auth });
      assert.equal((await redeliver('00000000-0000-4000-8000-000000000000')).statusCode, 404);
      assert.deepEqual(await records(t, c.auth, 'webhook_delivery.*'), []);
      const again = await redeliver(deliveryId);
      assert.equal(again.statusCode, 200, again.body);
      const redelivered = await only(t, c.auth, 'webhook_delivery.redelivered');
      assert.deepEqual(redelivered.target, { type: 'webhook_delivery', id: deliveryId, name: null });
      assert.equal(redelivered.metadata?.deliveries, 1);

      const remove = () => t.request({ method: 'DELETE', url: `/admin/v0/webhook_endpoints/${id}`, headers: c.auth });
      assert.equal((await remove()).statusCode, 200);
      assert.equal((await remove()).statusCode, 404);
      const deleted = await only(t, c.auth, 'webhook_endpoint.deleted');
      assert.deepEqual(deleted.target, { type: 'webhook_endpoint', id, name: 'http://127.0.0.1:9/hook' });
      assert.deepEqual(deleted.actor, { type: 'api_key', id: c.keyId, label: 'test' });
    });

    it('API: a refused award assignment records none', async () => {
      const t = ctx();
      const c = await t.community('enterprise');
      const award = await t.request({ method: 'POST', url: '/admin/v0/awards', headers: c.auth, payload: { name: 'Helper' } });
      // The harness's key may lack the awards permission for creating: then the CLI makes it.
      const awardId =
        award.statusCode === 201
          ? award.json<{ data: { id: string } }>().data.id
          : parseJsonOutput<{ id: string }>(
              await runCli(['award', 'create', '--community', c.id, '--name', 'Helper', '--json'], t.testDb.env),
            ).id;
      const refused = await t.request({
        method: 'POST',
        url: `/admin/v0/awards/${awardId}/assign`,
        headers: c.auth,
        payload: { recipient: { profile_id: '00000000-0000-4000-8000-000000000000' } },
      });
      assert.ok(refused.statusCode >= 400 && refused.statusCode < 500, refused.body);
      assert.deepEqual(await records(t, c.auth, 'award.assigned'), []);
    });

    it('CLI: webhook add, rotate-secret, redeliver and remove record once each as the operator; their refusals none', async () => {
      const t = ctx();
      const c = await t.community('enterprise');
      const env = { ...t.testDb.env, WEBHOOK_ALLOW_PRIVATE: 'true' };
      const refusedAdd = await runCli(['webhook', 'add', '--community', c.id, '--url', 'ftp://example.org/x'], env);
      assert.equal(refusedAdd.code, 1, refusedAdd.stdout);
      const added = await runCli(['webhook', 'add', '--community', c.id, '--url', 'http://127.0.0.1:9/cli', '--json'], env);
      assert.equal(added.code, 0, added.stderr);
      const { id, secret } = parseJsonOutput<{ id: string; secret: string }>(added);
      const created = await only(t, c.auth, 'webhook_endpoint.created');
      assert.deepEqual(created.actor, cli);
      assert.equal(created.context, null);
      assert.equal(created.target.id, id);

      const unknown = '00000000-0000-4000-8000-000000000000';
      assert.equal((await runCli(['webhook', 'rotate-secret', unknown], env)).code, 1);
      const rotated = await runCli(['webhook', 'rotate-secret', id, '--grace', '0', '--json'], env);
      assert.equal(rotated.code, 0, rotated.stderr);
      const newSecret = parseJsonOutput<{ secret: string }>(rotated).secret;
      const rotation = await only(t, c.auth, 'webhook_endpoint.secret_rotated');
      assert.deepEqual(rotation.actor, cli);
      assert.deepEqual(rotation.target, { type: 'webhook_endpoint', id, name: 'http://127.0.0.1:9/cli' });
      for (const text of [secret, newSecret]) assert.equal(JSON.stringify(rotation).includes(text), false, 'never a secret');

      assert.equal((await runCli(['webhook', 'redeliver', '--endpoint', unknown, '--since', '1h'], env)).code, 1);
      const redelivered = await runCli(['webhook', 'redeliver', '--endpoint', id, '--since', '1h', '--json'], env);
      assert.equal(redelivered.code, 0, redelivered.stderr);
      const redelivery = await only(t, c.auth, 'webhook_delivery.redelivered');
      assert.deepEqual(redelivery.actor, cli);
      assert.deepEqual(redelivery.target, { type: 'webhook_endpoint', id, name: 'http://127.0.0.1:9/cli' });
      assert.equal(redelivery.metadata?.deliveries, 0);

      assert.equal((await runCli(['webhook', 'remove', id], env)).code, 0);
      assert.equal((await runCli(['webhook', 'remove', id], env)).code, 1);
      const deleted = await only(t, c.auth, 'webhook_endpoint.deleted');
      assert.deepEqual(deleted.actor, cli);
      assert.equal(deleted.target.id, id);
    });

    it('CLI: award create and import record once each as the operator; a duplicate award, key commands on an unknown key and a refused file none', async () => {
      const t = ctx();
      const c = await t.community('enterprise');
      const env = t.testDb.env;
      const made = await runCli(['award', 'create', '--community', c.id, '--name', 'Helper', '--json'], env);
      assert.equal(made.code, 0, made.stderr);
      const awardId = parseJsonOutput<{ id: string }>(made).id;
      assert.equal((await runCli(['award', 'create', '--community', c.id, '--name', 'Helper'], env)).code, 1);
      const award = await only(t, c.auth, 'award.created');
      assert.deepEqual(award.actor, cli);
      assert.deepEqual(award.target, { type: 'award', id: awardId, name: 'Helper' });

      // Key commands on a key that does not exist: refused, nothing recorded (the harness's key is the server's own record).
      const unknownKey = '00000000-0000-4000-8000-000000000000';
      for (const args of [
        ['key', 'rotate', unknownKey],
        ['key', 'set-permissions', unknownKey, '--permissions', 'feeds:read'],
        ['key', 'revoke', unknownKey],
      ])
        assert.equal((await runCli(args, env)).code, 1, args.join(' '));
      assert.deepEqual(
        (await records(t, c.auth, 'api_key.*')).map((r) => [r.action, r.actor.type]),
        [['api_key.created', 'system']],
      );

      const dir = mkdtempSync(join(tmpdir(), 'activity-import-'));
      const bad = join(dir, 'bad.json');
      writeFileSync(bad, JSON.stringify({ profiles: [{ profile_id: 'not-a-uuid' }] }));
      assert.equal((await runCli(['import', bad, '--community', c.id], env)).code, 1);
      assert.deepEqual(await records(t, c.auth, 'import.*'), []);
      const good = join(dir, 'good.json');
      writeFileSync(good, JSON.stringify({ profiles: [{ profile_id: '3f0c6a52-8c1e-4a47-9d55-0d7b1f2c9e11', email: 'ada@example.com' }] }));
      const imported = await runCli(['import', good, '--community', c.id, '--json'], env);
      assert.equal(imported.code, 0, imported.stderr);
      const record = await only(t, c.auth, 'import.completed');
      assert.deepEqual(record.actor, cli);
      assert.deepEqual(record.target, { type: 'community', id: null, name: null });
      assert.deepEqual(record.metadata, { counts: { profiles: 1 } });
    });
  },
  { beforeReady: route.register, env: { WEBHOOK_ALLOW_PRIVATE: 'true' } },
);
