import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { describeEachEngine } from '../../support/harness.js';
import { event, idsOf, importInto, listEvents } from './fixtures.js';

const manyTags = Array.from({ length: 101 }, (_, i) => `t${i}`).join(',');

/** Query strings that must be refused, and the parameter the error message must name. */
const refused: [query: string, param: string][] = [
  ['page=-1', 'page'],
  ['page=abc', 'page'],
  ['page=1.5', 'page'],
  ['page=1000000001', 'page'],
  ['per_page=0', 'per_page'],
  ['per_page=51', 'per_page'],
  ['per_page=ten', 'per_page'],
  ['per_page=2.5', 'per_page'],
  ['per_page=', 'per_page'],
  ['time_filter=soon', 'time_filter'],
  ['time_filter=', 'time_filter'],
  ['date_filter=yesterday', 'date_filter'],
  ['date_filter=2026-11-21', 'date_filter'],
  ['date_filter=2026-02-30T10:00:00Z', 'date_filter'],
  ['reference_date=now', 'reference_date'],
  ['reference_date=2026-11-21T10:00:00', 'reference_date'],
  ['reference_date=2026-12-31T23:59:60Z', 'reference_date'],
  ['status=deleted', 'status'],
  ['status=Published', 'status'],
  ['status=draft&status=published', 'status'],
  ['published_to_site=yes', 'published_to_site'],
  ['published_to_site=1', 'published_to_site'],
  ['is_unlisted=TRUE', 'is_unlisted'],
  ['is_unlisted=0', 'is_unlisted'],
  ['feed_id=home', 'feed_id'],
  ['feed_id=1234', 'feed_id'],
  ['tag_ids=', 'tag_ids'],
  ['tag_ids=a,,b', 'tag_ids'],
  ['tag_ids=a,', 'tag_ids'],
  [`tag_ids=${manyTags}`, 'tag_ids'],
  ['perpage=20', 'perpage'],
];

describeEachEngine('calendar events: list query validation', (ctx) => {
  let auth: { authorization: string };

  before(async () => {
    const community = await ctx().community();
    auth = community.auth;
    await importInto(ctx(), community.id, { calendar_events: [event(1, '2026-12-01T10:00:00Z')] });
  });

  for (const [query, param] of refused) {
    it(`answers 400 validation_failed naming ${param} for ?${query.slice(0, 60)}`, async () => {
      const { status, body } = await listEvents(ctx(), auth, query);
      assert.equal(status, 400, JSON.stringify(body));
      assert.equal(body.success, false);
      assert.equal(body.error?.code, 'validation_failed');
      assert.match(body.error?.message ?? '', new RegExp(`\\b${param}\\b`), body.error?.message);
    });
  }

  it('reads an empty page (the nullable form) as page 0', async () => {
    const { status, body } = await listEvents(ctx(), auth, 'page=');
    assert.equal(status, 200, JSON.stringify(body));
    assert.equal(body.data.page, 0);
    assert.deepEqual(idsOf(body), ['ev0000000001']);
  });

  it('accepts the bounds themselves: page 0, per_page 1 and 50, and the largest page', async () => {
    for (const query of ['page=0&per_page=1', 'per_page=50', 'page=1000000000&per_page=50']) {
      const { status, body } = await listEvents(ctx(), auth, query);
      assert.equal(status, 200, `${query}: ${JSON.stringify(body)}`);
    }
    const last = await listEvents(ctx(), auth, 'page=1000000000&per_page=50');
    assert.deepEqual(last.body.data.records, []);
    assert.equal(last.body.data.has_next, false);
    assert.equal(last.body.data.total_records, 1);
  });

  it('accepts each parameter at a valid value, all at once', async () => {
    const query = [
      'page=0',
      'per_page=5',
      'time_filter=all',
      'date_filter=2026-12-01T00:00:00Z',
      `reference_date=${encodeURIComponent('2026-11-21T12:00:00.000+00:00')}`,
      'status=published',
      'published_to_site=false',
      'is_unlisted=false',
    ].join('&');
    const { status, body } = await listEvents(ctx(), auth, query);
    assert.equal(status, 200, JSON.stringify(body));
    assert.deepEqual(idsOf(body), ['ev0000000001']);
  });

  it('answers 401 without a key, before looking at the query', async () => {
    const res = await ctx().request({ method: 'GET', url: '/admin/v0/calendar_events?per_page=500' });
    assert.equal(res.statusCode, 401);
  });
});
