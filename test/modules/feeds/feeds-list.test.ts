import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { type Auth, feed, feedId, getFeed, importInto, type ListPage } from '../../support/feed-fixtures.js';
import { describeEachEngine } from '../../support/harness.js';

describeEachEngine('feeds: GET /feeds', (ctx) => {
  let auth: Auth;
  let otherAuth: Auth;

  const list = async (query = '', key: Auth = auth) => {
    const res = await ctx().request({ method: 'GET', url: `/admin/v0/feeds${query ? `?${query}` : ''}`, headers: key });
    return {
      res,
      status: res.statusCode,
      body: res.json<{ success: boolean; data: ListPage; error?: { code: string; message: string } }>(),
    };
  };
  const ids = (page: ListPage) => page.records.map((record) => record.id);

  // Feeds 1..12 created one minute apart in this order: 5 first, then 1, 2, 3 ... (not id order),
  // and 11 and 12 at the same instant (ties break by id).
  const createdOrder = [5, 1, 2, 3, 4, 6, 7, 8, 9, 10];
  const minute = (i: number) => new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString();

  before(async () => {
    const community = await ctx().community('free');
    auth = community.auth;
    await importInto(ctx(), community.id, {
      feeds: [
        ...createdOrder.map((n, i) => feed(n, { created_at: minute(i), emoji_icon: n === 1 ? ':wave:' : null })),
        feed(12, { created_at: minute(30) }),
        feed(11, { created_at: minute(30), is_archived: true, is_unlisted: true }),
      ],
    });
    const other = await ctx().community('free', 'Other');
    otherAuth = other.auth;
    await importInto(ctx(), other.id, { feeds: [feed(99)] });
  });

  it('lists every feed of the community, archived and unlisted ones too, oldest first, ties by id', async () => {
    const { status, body } = await list('per_page=50');
    assert.equal(status, 200);
    assert.equal(body.success, true);
    assert.deepEqual(ids(body.data), [...createdOrder, 11, 12].map(feedId));
  });

  it('shapes every record exactly as GET /feeds/{feed_id}', async () => {
    const { body } = await list('per_page=50');
    for (const record of body.data.records) {
      const single = await getFeed(ctx(), auth, String(record.id));
      assert.deepEqual(record, single.body.data);
    }
    assert.equal(body.data.records[1]?.emoji_icon, ':wave:');
    assert.equal(body.data.records[0]?.emoji_icon, null);
  });

  it('pages like every list: page 0 by default, 10 per page, has_next, totals', async () => {
    const { body } = await list();
    assert.deepEqual(
      { ...body.data, records: ids(body.data) },
      {
        page: 0,
        per_page: 10,
        count: 10,
        total_records: 12,
        total_pages: 2,
        has_next: true,
        records: createdOrder.map(feedId),
      },
    );
    const second = await list('page=1');
    assert.deepEqual(
      { ...second.body.data, records: ids(second.body.data) },
      {
        page: 1,
        per_page: 10,
        count: 2,
        total_records: 12,
        total_pages: 2,
        has_next: false,
        records: [feedId(11), feedId(12)],
      },
    );
  });

  it('walks every feed once with any page size', async () => {
    for (const perPage of [1, 5, 7, 50]) {
      const seen: unknown[] = [];
      for (let page = 0; ; page++) {
        const { body } = await list(`page=${page}&per_page=${perPage}`);
        seen.push(...ids(body.data));
        if (!body.data.has_next) break;
      }
      assert.deepEqual(seen, [...createdOrder, 11, 12].map(feedId), `per_page=${perPage}`);
    }
  });

  it('answers a page past the end with no records and the real totals', async () => {
    const { status, body } = await list('page=9&per_page=5');
    assert.equal(status, 200);
    assert.deepEqual(body.data, { page: 9, per_page: 5, count: 0, total_records: 12, total_pages: 3, has_next: false, records: [] });
  });

  it('answers 400 naming the parameter for per_page outside 1..50 and a bad page', async () => {
    for (const [query, field] of [
      ['per_page=0', 'query.per_page'],
      ['per_page=51', 'query.per_page'],
      ['per_page=ten', 'query.per_page'],
      ['page=-1', 'query.page'],
      ['page=1.5', 'query.page'],
    ]) {
      const { status, body } = await list(query);
      assert.equal(status, 400, query);
      assert.equal(body.error?.code, 'validation_failed', query);
      assert.match(body.error?.message ?? '', new RegExp(field.replace('.', '\\.')), query);
    }
  });

  it("shows only the caller's community", async () => {
    const { body } = await list('', otherAuth);
    assert.deepEqual(ids(body.data), [feedId(99)]);
  });

  it('answers an empty first page for a community without feeds', async () => {
    const empty = await ctx().community('free', 'Empty');
    const { body } = await list('', empty.auth);
    assert.deepEqual(body.data, { page: 0, per_page: 10, count: 0, total_records: 0, total_pages: 0, has_next: false, records: [] });
  });

  it('answers 401 without a key, and carries the rate-limit headers like every route', async () => {
    const res = await ctx().request({ method: 'GET', url: '/admin/v0/feeds' });
    assert.equal(res.statusCode, 401);
    const { res: ok } = await list();
    assert.ok(ok.headers['ratelimit-limit'], 'RateLimit-Limit');
    assert.ok(ok.headers['ratelimit-remaining'] !== undefined, 'RateLimit-Remaining');
  });

  it('is in the OpenAPI document, with its paging parameters and the feed record', async () => {
    const res = await ctx().request({ method: 'GET', url: '/admin/v0/openapi.json' });
    const document = res.json<{ paths: Record<string, Record<string, { parameters?: { name: string }[] }>> }>();
    const operation = document.paths['/admin/v0/feeds']?.get;
    assert.ok(operation, 'GET /admin/v0/feeds is documented');
    assert.deepEqual(operation.parameters?.map((parameter) => parameter.name).sort(), ['page', 'per_page']);
    assert.match(JSON.stringify(operation), /chat_channel_num_members/);
  });
});
