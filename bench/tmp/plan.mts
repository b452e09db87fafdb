import { sql } from 'kysely';
import { openDatabase } from '../../src/db/database.js';
import { selectPostsPage } from '../../src/modules/posts/posts.queries.js';

const database = openDatabase({ engine: 'sqlite', path: '/work/main/bench/.data/sqlite/100k.db' });
const c = await database.db.selectFrom('communities').select('id').executeTakeFirstOrThrow();
const db = database.db;
const origExec = db.getExecutor();
const captured = '';
const rows = await selectPostsPage(db, c.id, { kind: 'home' }, 'newest', 20, 60);
console.log(rows.length, rows[0]?.author_doc?.slice(0, 40), rows[0]?.feed_doc?.slice(0, 40));
const t0 = process.hrtime.bigint();
for (let i = 0; i < 2000; i++) await selectPostsPage(db, c.id, { kind: 'home' }, 'newest', 20, 60);
console.log('µs/page', Number(process.hrtime.bigint() - t0) / 2000 / 1000);
const q = db.selectFrom('posts').select('id').where('community_id', '=', c.id);
const sqlite = (await import('better-sqlite3')).default('/work/main/bench/.data/sqlite/100k.db');
