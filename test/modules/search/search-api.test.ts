/**
 * GET /admin/v0/search through HTTP on both engines: what is searchable, the query language, case,
 * accents and scripts, hostile input, the ranking rule (the same order on both engines: the expected
 * orders are written out), filters, paging and validation.
 */
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { createApiKey } from '../../../src/modules/api-keys/api-keys.commands.js';
import { permissions } from '../../../src/shared/permissions.js';
import * as fx from '../../support/feed-fixtures.js';
import { describeEachEngine, type TestApp } from '../../support/harness.js';
import { found, search } from './search-support.js';

const at = (minutes: number) => {
  const iso = new Date(Date.parse('2026-03-01T00:00:00Z') + minutes * 60_000).toISOString();
  return { content_created_at: iso, latest_activity_at: iso };
};

/** A post with a title and a plain body, `minutes` after the corpus' start. */
const p = (n: number, title: string, body: string, minutes = n, extra: Record<string, unknown> = {}) =>
  fx.post(n, 1, { title, body_plaintext: body, ...at(minutes), ...extra });

const corpus = {
  profiles: [fx.profile(1, { preferred_name: 'Ada Lovelace' }), fx.profile(2, { preferred_name: 'Zoë Ångström' })],
  feeds: [fx.feed(1), fx.feed(2, { is_archived: true }), fx.feed(3, { is_unlisted: true }), fx.feed(4)],
  posts: [
    p(1, 'Café opening', 'We open the new café on Monday.'),
    p(2, 'Weekly notes', 'A naïve question about the cafeteria menu.'),
    p(3, 'Привет мир', 'Первое сообщение на русском.'),
    p(4, 'Καλημέρα', 'Η συνάντηση είναι αύριο.'),
    p(5, '東京タワー', '東京タワーに行きました。とても高いです。'),
    p(6, 'Big cat', 'The big cat sat on the mat.'),
    p(7, 'Cat big', 'The cat is big, not a big cat story.', 7, { title: 'Reversed' }),
    p(8, 'Dogs', 'Dogs and cats are friends.'),
    p(9, 'Launch', 'Launch party with pizza.', 9, { author_profile_id: fx.profileId(2) }),
    p(10, 'Garden', 'We plant tomatoes.', 10, {
      chat_message: { blocks: [fx.block(fx.section(fx.text('Thanks '), fx.user('U1'), fx.text(' for the seeds '), fx.emoji('seedling')))] },
      body_plaintext: undefined,
    }),
    fx.post(21, 2, { title: 'Archived pizza', body_plaintext: 'pizza in an archived feed', ...at(21) }),
    fx.post(31, 3, { title: 'Unlisted pizza', body_plaintext: 'pizza in an unlisted feed', ...at(31) }),
    fx.post(41, 4, { title: 'Pizza night', body_plaintext: 'more pizza', ...at(41), author_profile_id: fx.profileId(2) }),
    p(50, 'Operators', 'cat OR dog, title:cat and NEAR(cat dog) are written here as text', 50),
  ],
};

for (const { name, env } of [
  { name: 'ranked lists kept', env: {} },
  { name: 'every page ranked anew', env: { SEARCH_RANKINGS_MB: '0' } },
]) {
  describeEachEngine(
    `search: GET /admin/v0/search (${name})`,
    (ctx) => {
      let t: TestApp;
      let community: Awaited<ReturnType<TestApp['community']>>;
      before(async () => {
        t = ctx();
        community = await t.community();
        await fx.importInto(t, community.id, corpus);
      });
      const find = (q: string, extra: Record<string, string | number> = {}) => found(t, community.auth, q, extra);

      it('answers the list envelope, each record exactly as GET /posts/{id} (and the posts list) shows it', async () => {
        const { status, body } = await search(t, community.auth, 'pizza');
        assert.equal(status, 200);
        assert.deepEqual(Object.keys(body.data), ['page', 'per_page', 'count', 'total_records', 'total_pages', 'has_next', 'records']);
        assert.equal(body.data.per_page, 10);
        for (const record of body.data.records) {
          const one = await t.request({ method: 'GET', url: `/admin/v0/posts/${String(record.id)}`, headers: community.auth });
          assert.deepEqual(record, one.json<{ data: unknown }>().data);
        }
        const list = await t.request({ method: 'GET', url: `/admin/v0/feeds/${fx.feedId(4)}/posts`, headers: community.auth });
        assert.deepEqual(
          body.data.records.find((record) => record.id === fx.postId(41)),
          list.json<{ data: { records: unknown[] } }>().data.records[0],
        );
      });

      it('searches titles, bodies and the author name, leaving out archived and unlisted feeds', async () => {
        assert.deepEqual(await find('opening'), [fx.postId(1)], 'a title word');
        assert.deepEqual(await find('seeds'), [fx.postId(10)], 'a body word');
        assert.deepEqual(await find('lovelace'), await find('ada'), 'the author name');
        assert.equal((await find('lovelace')).length, 10, 'every post of the author in a listed feed');
        assert.deepEqual(await find('pizza'), [fx.postId(41), fx.postId(9)], 'not the archived nor the unlisted feed');
      });

      it('finds mentions by display name and emoji by shortcode in body_plaintext', async () => {
        assert.deepEqual(await find('"thanks ada lovelace"'), [fx.postId(10)]);
        assert.deepEqual(await find('seedling'), [fx.postId(10)]);
      });

      it('ignores case and accents both ways', async () => {
        assert.deepEqual(await find('cafe'), [fx.postId(1)]);
        assert.deepEqual(await find('CAFÉ'), [fx.postId(1)]);
        assert.deepEqual(await find('naive'), [fx.postId(2)]);
        assert.deepEqual(await find('naïve'), [fx.postId(2)]);
        assert.deepEqual(await find('zoe angstrom'), [fx.postId(41), fx.postId(9)]);
      });

      it('finds words in Cyrillic and Greek, and CJK text as substrings', async () => {
        assert.deepEqual(await find('привет'), [fx.postId(3)]);
        assert.deepEqual(await find('РУССКОМ'), [fx.postId(3)]);
        assert.deepEqual(await find('καλημερα'), [fx.postId(4)], 'Greek without its accent');
        assert.deepEqual(await find('συναντηση'), [fx.postId(4)]);
        assert.deepEqual(await find('タワー'), [fx.postId(5)], 'inside a word');
        assert.deepEqual(await find('東京'), [fx.postId(5)]);
        assert.deepEqual(await find('行きました'), [fx.postId(5)]);
        assert.deepEqual(await find('京東'), [], 'characters in another order are not a match');
      });

      it('ANDs words, matches "phrases" in order, excludes -words, and word* is a prefix', async () => {
        assert.deepEqual(await find('big cat'), [fx.postId(6), fx.postId(7)]);
        assert.deepEqual(await find('"big cat"'), [fx.postId(6), fx.postId(7)]);
        assert.deepEqual(await find('"cat big"'), [], 'a phrase is in order');
        assert.deepEqual(await find('"cat sat"'), [fx.postId(6)]);
        assert.deepEqual(await find('cat -mat'), [fx.postId(50), fx.postId(7)]);
        assert.deepEqual(await find('cat -"big cat"'), [fx.postId(50)]);
        assert.deepEqual(await find('caf*'), [fx.postId(1), fx.postId(2)], 'café and cafeteria');
        assert.deepEqual(await find('cafeteria'), [fx.postId(2)]);
        assert.deepEqual(await find('"the big ca"*'), [fx.postId(6)], 'a phrase ending in a prefix');
        assert.deepEqual(await find('"big ca"*'), [fx.postId(6), fx.postId(7)]);
        assert.deepEqual(await find('cat'), [fx.postId(6), fx.postId(50), fx.postId(7)], 'cats is another word');
      });

      it('finds phrases with common words (read through word pairs) exactly: in order, within one field, title first', async () => {
        const c = await t.community();
        await fx.importInto(t, c.id, {
          profiles: [fx.profile(1), fx.profile(2, { preferred_name: 'Friend of Mine' })],
          feeds: [fx.feed(1)],
          posts: [
            fx.post(1, 1, { title: 'The state of the art', body_plaintext: 'nothing here', ...at(1) }),
            // "of" ends the title and "the" starts the body: not the phrase "of the".
            fx.post(2, 1, { title: 'Art of', body_plaintext: 'the state is fine', ...at(2) }),
            fx.post(3, 1, { title: 'Notes', body_plaintext: 'on the state of the art today', ...at(3) }),
            fx.post(4, 1, { title: 'Notes', body_plaintext: 'art the of state', ...at(4) }),
            fx.post(5, 1, { title: 'Mine', body_plaintext: 'a friend', ...at(5), author_profile_id: fx.profileId(2) }),
          ],
        });
        const ids = (...n: number[]) => n.map(fx.postId);
        assert.deepEqual(await found(t, c.auth, '"of the"'), ids(1, 3), 'not across the title and the body');
        assert.deepEqual(await found(t, c.auth, '"The State"'), ids(1, 3, 2), 'the title first, then newest');
        assert.deepEqual(await found(t, c.auth, '"state of the art"'), ids(1, 3));
        assert.deepEqual(await found(t, c.auth, '"art the"'), ids(4), 'in order');
        assert.deepEqual(await found(t, c.auth, '"the of"'), ids(4));
        assert.deepEqual(await found(t, c.auth, '"friend of"'), ids(5), "in the author's name");
        assert.deepEqual(await found(t, c.auth, '"of mine" friend'), ids(5));
        assert.deepEqual(await found(t, c.auth, '"of the ar"*'), ids(1, 3), 'a phrase ending in a prefix');
        assert.deepEqual(await found(t, c.auth, 'art -"of the"'), ids(2, 4), 'an excluded phrase');
        assert.deepEqual(await found(t, c.auth, '"of the" notes'), ids(3), 'a phrase among words');
        assert.deepEqual(await found(t, c.auth, '"the end"'), []);
      });

      it('takes engine operators as plain text', async () => {
        assert.deepEqual(await find('cat OR dog'), [fx.postId(50)], 'OR is the word "or"');
        assert.deepEqual(await find('title:cat'), [fx.postId(50)], 'no column filter: the words "title cat"');
        assert.deepEqual(await find('NEAR(cat dog)'), [fx.postId(50)]);
        assert.deepEqual(await find('cat & dog'), [fx.postId(50)]);
        assert.deepEqual(await find('!mat'), [fx.postId(6)], '! is not a negation');
        assert.deepEqual(await find('big <-> cat'), [fx.postId(6), fx.postId(7)]);
        assert.deepEqual(await find('^big'), [fx.postId(6), fx.postId(7)]);
      });

      it('never answers a 500 to hostile queries', async () => {
        const hostile = [
          '"',
          '""',
          '"""',
          '-',
          '--',
          '-"',
          '*',
          '**',
          'a*',
          '-*',
          '(',
          ')',
          '(((((',
          'NEAR',
          'NEAR/3',
          'AND',
          'OR OR OR',
          'NOT',
          '{title}: x',
          'title : x',
          '^',
          '&',
          '|',
          '!',
          '!!',
          '<->',
          '<2>',
          ':*',
          "'",
          "''",
          "x' OR '1'='1",
          '\\',
          '\\\\\'"',
          'x:*A',
          '💥🔥',
          '\u200b',
          'ﷺ',
          '𝐀𝐁𝐂',
          '-cat',
          '- cat',
          'cat -',
          '"unbalanced phrase',
          'a'.repeat(200),
          `${'('.repeat(100)}${')'.repeat(100)}`,
          Array.from({ length: 66 }, (_, i) => `w${i}`)
            .join(' ')
            .slice(0, 200),
          Array.from({ length: 66 }, () => '-x').join(' '),
          'x* '.repeat(66).trim(),
        ];
        for (const q of hostile) {
          const { status, body } = await search(t, community.auth, q);
          assert.equal(status, 200, `${JSON.stringify(q)}: ${JSON.stringify(body)}`);
          assert.equal(body.data.count, body.data.records.length);
        }
        assert.deepEqual(await find('-cat'), [], 'only exclusions: nothing');
      });

      it('ranks title matches above body matches, more title matches above fewer, then newest activity, then id', async () => {
        // big: 6 (title "Big cat", body), 7 (title "Reversed", body). cat: 6, 7, 50, and "cats" in 8 is another word.
        assert.deepEqual(await find('big'), [fx.postId(6), fx.postId(7)], 'title before body');
        // Post 6 has both words in its title, 7 none: 6 first although 7 is newer.
        assert.deepEqual(await find('big cat'), [fx.postId(6), fx.postId(7)]);
        // Every "lovelace" post matches in the author name alone: newest activity first.
        const lovelace = await find('lovelace');
        assert.deepEqual(lovelace.slice(0, 3), [fx.postId(50), fx.postId(10), fx.postId(8)]);
        // "pizza": 41 (title and body) above 9 (body only), although 9 is not newer.
        assert.deepEqual(await find('pizza'), [fx.postId(41), fx.postId(9)]);
      });

      it('ranks more query terms in the title first, then more in the body or author name', async () => {
        const c = await t.community();
        await fx.importInto(t, c.id, {
          profiles: [fx.profile(1), fx.profile(2, { preferred_name: 'Party Person' })],
          feeds: [fx.feed(1)],
          posts: [
            fx.post(1, 1, { title: 'garden party', body_plaintext: 'nothing else', ...at(1) }),
            fx.post(2, 1, { title: 'garden', body_plaintext: 'a party', ...at(2) }),
            fx.post(3, 1, { title: 'other', body_plaintext: 'garden party', ...at(3) }),
            fx.post(4, 1, { title: 'other', body_plaintext: 'garden', ...at(4), author_profile_id: fx.profileId(2) }),
            fx.post(5, 1, { title: 'party', body_plaintext: 'garden party', ...at(5) }),
            fx.post(6, 1, { title: 'garden', body_plaintext: 'nothing', ...at(6), author_profile_id: fx.profileId(2) }),
          ],
        });
        // Titles with both words (1), then one word in the title: with both in the text (5), one (2, 6: newer first), then none.
        assert.deepEqual(await found(t, c.auth, 'garden party'), [1, 5, 6, 2, 4, 3].map(fx.postId));
        assert.deepEqual(await found(t, c.auth, 'garden party -person'), [1, 5, 2, 3].map(fx.postId));
      });

      it('breaks ties by latest_activity_at, newest first, then by id', async () => {
        const c = await t.community();
        await fx.importInto(t, c.id, {
          profiles: [fx.profile(1)],
          feeds: [fx.feed(1)],
          posts: [
            fx.post(1, 1, { title: 'same', ...at(5) }),
            fx.post(2, 1, { title: 'same', ...at(9) }),
            fx.post(3, 1, { title: 'same', ...at(5) }),
            fx.post(4, 1, { title: 'other', body_plaintext: 'same', ...at(99) }),
          ],
        });
        assert.deepEqual(await found(t, c.auth, 'same'), [fx.postId(2), fx.postId(3), fx.postId(1), fx.postId(4)]);
      });

      it('filters by feed and by author', async () => {
        assert.deepEqual(await find('pizza', { feed_id: fx.feedId(4) }), [fx.postId(41)]);
        assert.deepEqual(await find('pizza', { feed_id: fx.feedId(4).toUpperCase() }), [fx.postId(41)], 'UUIDs in any case');
        assert.deepEqual(await find('pizza', { feed_id: fx.feedId(2) }), [], 'an archived feed stays out');
        assert.deepEqual(await find('pizza', { feed_id: fx.feedId(99) }), [], 'an unknown feed: nothing');
        assert.deepEqual(await find('pizza', { author_profile_id: fx.profileId(2) }), [fx.postId(41), fx.postId(9)]);
        assert.deepEqual(await find('pizza', { author_profile_id: fx.profileId(1) }), []);
        assert.deepEqual(await find('pizza', { author_profile_id: fx.profileId(2), feed_id: fx.feedId(1) }), [fx.postId(9)]);
      });

      it('pages as every list: exact totals, has_next, a page past the end with the real totals', async () => {
        const pages = [];
        for (let page = 0; page < 3; page++) {
          const { body } = await search(t, community.auth, 'lovelace', { per_page: 4, page });
          pages.push(body.data);
        }
        assert.deepEqual(
          pages.map((page) => [page.count, page.total_records, page.total_pages, page.has_next]),
          [
            [4, 10, 3, true],
            [4, 10, 3, true],
            [2, 10, 3, false],
          ],
        );
        assert.deepEqual(
          pages.flatMap((page) => page.records.map((record) => record.id)),
          await find('lovelace'),
        );
        const past = (await search(t, community.auth, 'lovelace', { per_page: 4, page: 7 })).body.data;
        assert.deepEqual([past.count, past.total_records, past.total_pages, past.has_next, past.records], [0, 10, 3, false, []]);
      });

      it('refuses a missing, empty or too long q, and bad paging or filters, with a 400 naming the field', async () => {
        const cases: [Record<string, string>, RegExp][] = [
          [{}, /q/],
          [{ q: '' }, /query\.q/],
          [{ q: '   ' }, /query\.q/],
          [{ q: 'x'.repeat(201) }, /query\.q/],
          [{ q: 'x', per_page: '51' }, /per_page/],
          [{ q: 'x', per_page: '0' }, /per_page/],
          [{ q: 'x', page: '-1' }, /page/],
          [{ q: 'x', feed_id: 'home' }, /feed_id/],
          [{ q: 'x', author_profile_id: 'nope' }, /author_profile_id/],
        ];
        for (const [query, field] of cases) {
          const res = await t.request({ method: 'GET', url: `/admin/v0/search?${new URLSearchParams(query)}`, headers: community.auth });
          assert.equal(res.statusCode, 400, JSON.stringify(query));
          const error = res.json<{ error: { code: string; message: string } }>().error;
          assert.equal(error.code, 'validation_failed');
          assert.match(error.message, field);
        }
        assert.equal((await search(t, community.auth, `  ${'x'.repeat(200)}  `)).status, 200, '200 characters after trimming');
        assert.equal((await search(t, community.auth, 'é'.repeat(200))).status, 200, 'characters, not bytes');
      });

      it('needs feeds:read, a key, and sees only its own community', async () => {
        const without = await createApiKey(
          { database: t.database, clock: t.clock, communityId: community.id },
          { label: 'no-feeds', permissions: new Set(permissions.filter((permission) => permission !== 'feeds:read')) },
        );
        const refused = await search(t, { authorization: `Bearer ${without.key}` }, 'pizza');
        assert.equal(refused.status, 403);
        assert.equal((await t.request({ method: 'GET', url: '/admin/v0/search?q=pizza' })).statusCode, 401);
        const other = await t.community();
        assert.deepEqual(await found(t, other.auth, 'pizza'), []);
        await fx.importInto(t, other.id, {
          profiles: [fx.profile(1)],
          feeds: [fx.feed(1)],
          posts: [fx.post(1, 1, { title: 'pizza elsewhere' })],
        });
        assert.deepEqual(await found(t, other.auth, 'pizza'), [fx.postId(1)]);
        assert.deepEqual(await find('pizza'), [fx.postId(41), fx.postId(9)], 'the first community still finds only its own');
      });

      it('is in the OpenAPI document with its plan and permission', async () => {
        const doc = (await t.request({ method: 'GET', url: '/admin/v0/openapi.json' })).json<{
          paths: Record<string, Record<string, Record<string, unknown>>>;
        }>();
        const operation = doc.paths['/admin/v0/search']?.get;
        assert.ok(operation, 'documented');
        assert.equal(operation['x-permission'], 'feeds:read');
        assert.equal(operation['x-plan'], 'free');
        const names = (operation.parameters as { name: string }[]).map((parameter) => parameter.name);
        assert.deepEqual(names.sort(), ['author_profile_id', 'feed_id', 'page', 'per_page', 'q']);
      });
    },
    { env },
  );
}
