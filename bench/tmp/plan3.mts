import Database from 'better-sqlite3';

const s = new Database('/work/main/bench/.data/sqlite/100k.db', { readonly: true });
const c = (s.prepare('select id from communities').get() as { id: string }).id;
const cols = 'id, feed_id, author_profile_id, in_home, content_created_at, latest_activity_at, doc, mentions, created_at, updated_at';
const joined = `select "page".*, "author"."doc" as "author_doc", "feed"."doc" as "feed_doc" from (select ${cols} from posts where community_id = ? and in_home = ? order by content_created_at desc, id desc limit ? offset ?) as "page" left join profiles as author on author.community_id = ? and author.id = page.author_profile_id left join feeds as feed on feed.community_id = ? and feed.id = page.feed_id order by page.content_created_at desc, page.id desc`;
const plain = `select ${cols} from posts where community_id = ? and in_home = ? order by content_created_at desc, id desc limit ? offset ?`;
for (const [n, q, args] of [
  ['joined', joined, [c, 1, 20, 60, c, c]],
  ['plain', plain, [c, 1, 20, 60]],
] as const) {
  console.log(
    n,
    s
      .prepare('explain query plan ' + q)
      .all(...args)
      .map((r: any) => r.detail)
      .join(' | '),
  );
  const st = s.prepare(q);
  for (let i = 0; i < 200; i++) st.all(...args);
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < 2000; i++) st.all(...args);
  console.log(n, 'µs', Number(process.hrtime.bigint() - t0) / 2000 / 1000);
}
