/**
 * The exact answers (status and body) of the API's refusals made by rules outside the request
 * schemas: of query and path parameters (search, calendar event filters, feed and award ids), of
 * an API key's rotation, and of the webhook services (receiver URLs, event types, statuses, the
 * endpoint limit). Written before these refusals became one type rendered by the error handler
 * (issue 37), so that the change provably kept every byte of them.
 */
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { createApiKey } from '../../src/modules/api-keys/api-keys.commands.js';
import { parsePermissionList } from '../../src/shared/permissions.js';
import { durationMs } from '../../src/shared/time.js';
import { describeEachEngine } from '../support/harness.js';

const urn = 'urn:uuid:00000000-0000-4000-8000-000000000001';
const leapSecond = '2026-06-30T23:59:60Z';

/** [what, method, url (of the made ids), payload, the answer's status, its body]. */
type Case = [string, 'GET' | 'POST' | 'PATCH', (m: Made) => string, Record<string, unknown> | undefined, number, string];

interface Made {
  endpoint: string;
}

const cases: Case[] = [
  [
    'search, blank q',
    'GET',
    () => '/admin/v0/search?q=%20%20',
    undefined,
    400,
    '{"success":false,"error":{"code":"validation_failed","message":"query.q: must not be empty (1 to 200 characters after trimming)","hint":"Correct the named field and retry."}}',
  ],

  [
    'search, long q',
    'GET',
    () => `/admin/v0/search?q=${'w'.repeat(201)}`,
    undefined,
    400,
    '{"success":false,"error":{"code":"validation_failed","message":"query.q: must be at most 200 characters after trimming","hint":"Correct the named field and retry."}}',
  ],

  [
    'calendar events, a reference date at a leap second',
    'GET',
    () => `/admin/v0/calendar_events?reference_date=${leapSecond}`,
    undefined,
    400,
    '{"success":false,"error":{"code":"validation_failed","message":"query.reference_date: must be a valid ISO 8601 date-time","hint":"Correct the named field and retry."}}',
  ],

  [
    'calendar events, a date filter at a leap second',
    'GET',
    () => `/admin/v0/calendar_events?date_filter=${leapSecond}`,
    undefined,
    400,
    '{"success":false,"error":{"code":"validation_failed","message":"query.date_filter: must be a valid ISO 8601 date-time","hint":"Correct the named field and retry."}}',
  ],

  [
    'calendar events, an empty tag id',
    'GET',
    () => '/admin/v0/calendar_events?tag_ids=a,,b',
    undefined,
    400,
    '{"success":false,"error":{"code":"validation_failed","message":"query.tag_ids: must be comma-separated tag ids, none empty","hint":"Correct the named field and retry."}}',
  ],

  [
    'calendar events, too many tag ids',
    'GET',
    () => `/admin/v0/calendar_events?tag_ids=${Array.from({ length: 101 }, (_, i) => `t${i}`).join(',')}`,
    undefined,
    400,
    '{"success":false,"error":{"code":"validation_failed","message":"query.tag_ids: must list at most 100 tag ids","hint":"Correct the named field and retry."}}',
  ],

  [
    'feed, an id of urn form',
    'GET',
    () => `/admin/v0/feeds/${urn}`,
    undefined,
    400,
    '{"success":false,"error":{"code":"validation_failed","message":"path.feed_id: must match pattern \\"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$\\"","hint":"Correct the named field and retry."}}',
  ],

  [
    'feed posts, an id of urn form',
    'GET',
    () => `/admin/v0/feeds/${urn}/posts`,
    undefined,
    400,
    '{"success":false,"error":{"code":"validation_failed","message":"path.feed_id: must be a UUID or \\"home\\"","hint":"Correct the named field and retry."}}',
  ],

  [
    'feed posts, neither an id nor home',
    'GET',
    () => '/admin/v0/feeds/homes/posts',
    undefined,
    400,
    '{"success":false,"error":{"code":"validation_failed","message":"path.feed_id: must be a UUID or \\"home\\"","hint":"Correct the named field and retry."}}',
  ],

  [
    'award assign, an id of urn form',
    'POST',
    () => `/admin/v0/awards/${urn}/assign`,
    { recipient: { email: 'a@b.org' } },
    400,
    '{"success":false,"error":{"code":"validation_failed","message":"path.award_id: must match pattern \\"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$\\"","hint":"Correct the named field and retry."}}',
  ],

  [
    'webhook endpoint, not a URL',
    'POST',
    () => '/admin/v0/webhook_endpoints',
    { url: 'hook' },
    400,
    '{"success":false,"error":{"code":"validation_failed","message":"body.url: must be an absolute URL such as https://example.com/webhooks","hint":"Correct the named field and retry."}}',
  ],

  [
    'webhook endpoint, plain http',
    'POST',
    () => '/admin/v0/webhook_endpoints',
    { url: 'http://93.184.215.14/hook' },
    400,
    '{"success":false,"error":{"code":"validation_failed","message":"body.url: must be an https URL","hint":"Correct the named field and retry."}}',
  ],

  [
    'webhook endpoint, a private address',
    'POST',
    () => '/admin/v0/webhook_endpoints',
    { url: 'https://10.1.2.3/hook' },
    400,
    '{"success":false,"error":{"code":"validation_failed","message":"body.url: resolves to 10.1.2.3, a loopback, private or reserved address","hint":"Correct the named field and retry."}}',
  ],

  [
    'webhook endpoint, credentials',
    'POST',
    () => '/admin/v0/webhook_endpoints',
    { url: 'https://u:p@93.184.215.14/' },
    400,
    '{"success":false,"error":{"code":"validation_failed","message":"body.url: must not carry credentials","hint":"Correct the named field and retry."}}',
  ],

  [
    'webhook endpoint, a fragment',
    'POST',
    () => '/admin/v0/webhook_endpoints',
    { url: 'https://93.184.215.14/#x' },
    400,
    '{"success":false,"error":{"code":"validation_failed","message":"body.url: must not have a #fragment","hint":"Correct the named field and retry."}}',
  ],

  [
    'webhook endpoint, no event type',
    'POST',
    () => '/admin/v0/webhook_endpoints',
    { url: 'https://93.184.215.14/', events: [' '] },
    400,
    '{"success":false,"error":{"code":"validation_failed","message":"body.events[0]: must be one of \\"calendar_event.created\\", \\"calendar_event.updated\\", \\"calendar_event.deleted\\", \\"calendar_event.registration.created\\", \\"calendar_event.registration.updated\\", \\"member.created\\", \\"member.updated\\", \\"member.deactivated\\", \\"group.member_added\\", \\"post.created\\", \\"post.updated\\", \\"post.deleted\\", \\"award.assigned\\"","hint":"Correct the named field and retry."}}',
  ],

  [
    'webhook endpoint, an unknown event type',
    'POST',
    () => '/admin/v0/webhook_endpoints',
    { url: 'https://93.184.215.14/', events: ['member.eaten'] },
    400,
    '{"success":false,"error":{"code":"validation_failed","message":"body.events[0]: must be one of \\"calendar_event.created\\", \\"calendar_event.updated\\", \\"calendar_event.deleted\\", \\"calendar_event.registration.created\\", \\"calendar_event.registration.updated\\", \\"member.created\\", \\"member.updated\\", \\"member.deactivated\\", \\"group.member_added\\", \\"post.created\\", \\"post.updated\\", \\"post.deleted\\", \\"award.assigned\\"","hint":"Correct the named field and retry."}}',
  ],

  [
    'webhook endpoint update, not a URL',
    'PATCH',
    (m) => `/admin/v0/webhook_endpoints/${m.endpoint}`,
    { url: 'hook' },
    400,
    '{"success":false,"error":{"code":"validation_failed","message":"body.url: must be an absolute URL such as https://example.com/webhooks","hint":"Correct the named field and retry."}}',
  ],

  [
    'webhook endpoint update, an unknown event type',
    'PATCH',
    (m) => `/admin/v0/webhook_endpoints/${m.endpoint}`,
    { events: ['x.y'] },
    400,
    '{"success":false,"error":{"code":"validation_failed","message":"body.events[0]: must be one of \\"calendar_event.created\\", \\"calendar_event.updated\\", \\"calendar_event.deleted\\", \\"calendar_event.registration.created\\", \\"calendar_event.registration.updated\\", \\"member.created\\", \\"member.updated\\", \\"member.deactivated\\", \\"group.member_added\\", \\"post.created\\", \\"post.updated\\", \\"post.deleted\\", \\"award.assigned\\"","hint":"Correct the named field and retry."}}',
  ],

  [
    'webhook test, an unknown event type',
    'POST',
    (m) => `/admin/v0/webhook_endpoints/${m.endpoint}/test`,
    { event_type: 'x.y' },
    400,
    '{"success":false,"error":{"code":"validation_failed","message":"body.event_type: must be one of \\"calendar_event.created\\", \\"calendar_event.updated\\", \\"calendar_event.deleted\\", \\"calendar_event.registration.created\\", \\"calendar_event.registration.updated\\", \\"member.created\\", \\"member.updated\\", \\"member.deactivated\\", \\"group.member_added\\", \\"post.created\\", \\"post.updated\\", \\"post.deleted\\", \\"award.assigned\\"","hint":"Correct the named field and retry."}}',
  ],

  [
    'webhook deliveries, an unknown status',
    'GET',
    (m) => `/admin/v0/webhook_endpoints/${m.endpoint}/deliveries?status=lost`,
    undefined,
    400,
    '{"success":false,"error":{"code":"validation_failed","message":"query.status: must be one of \\"pending\\", \\"delivered\\", \\"failed\\"","hint":"Correct the named field and retry."}}',
  ],
];

describeEachEngine('refusal envelopes of rules outside the request schemas', (ctx) => {
  let auth: { authorization: string };
  let made: Made;

  before(async () => {
    const t = ctx();
    const community = await t.community();
    auth = community.auth;
    const created = await t.request({
      method: 'POST',
      url: '/admin/v0/webhook_endpoints',
      headers: auth,
      payload: { url: 'https://93.184.215.14/hook' },
    });
    assert.equal(created.statusCode, 201, created.body);
    made = { endpoint: created.json<{ data: { id: string } }>().data.id };
  });

  for (const [what, method, url, payload, status, body] of cases) {
    it(`${what}: ${status} with the envelope`, async () => {
      const res = await ctx().request({ method, url: url(made), headers: auth, ...(payload ? { payload } : {}) });
      assert.deepEqual({ status: res.statusCode, body: res.body }, { status, body });
    });
  }

  it('api key rotate, an expired key: 400 naming path.id', async () => {
    const t = ctx();
    const community = await t.community();
    const admin = await createApiKey(
      { database: t.database, clock: t.clock, communityId: community.id },
      { label: 'admin', permissions: parsePermissionList('all,api_keys:write') },
    );
    const expired = (
      await createApiKey(
        { database: t.database, clock: t.clock, communityId: community.id },
        { label: 'expiring', expiresInMs: durationMs(1000) },
      )
    ).id;
    t.clock.advance(2000);
    const res = await t.request({
      method: 'POST',
      url: `/admin/v0/api_keys/${expired}/rotate`,
      headers: { authorization: `Bearer ${admin.key}` },
    });
    assert.deepEqual(
      { status: res.statusCode, body: res.body },
      {
        status: 400,
        body: `{"success":false,"error":{"code":"validation_failed","message":"path.id: API key \\"${expired}\\" has expired; create a new key instead.","hint":"Correct the named field and retry."}}`,
      },
    );
  });

  it('the endpoint limit: 400 naming body.url', async () => {
    const { auth: own } = await ctx().community();
    for (let i = 0; i < 20; i++) {
      const res = await ctx().request({
        method: 'POST',
        url: '/admin/v0/webhook_endpoints',
        headers: own,
        payload: { url: `https://93.184.215.14/${i}` },
      });
      assert.equal(res.statusCode, 201, res.body);
    }
    const res = await ctx().request({
      method: 'POST',
      url: '/admin/v0/webhook_endpoints',
      headers: own,
      payload: { url: 'https://93.184.215.14/21' },
    });
    assert.deepEqual(
      { status: res.statusCode, body: res.body },
      {
        status: 400,
        body: '{"success":false,"error":{"code":"validation_failed","message":"body.url: a community may have at most 20 webhook endpoints; remove one first","hint":"Correct the named field and retry."}}',
      },
    );
  });
});
