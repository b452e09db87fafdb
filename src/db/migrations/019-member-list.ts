import { sql } from 'kysely';
import { atomically, isPostgres, type MigrationDb } from './migration-support.js';

/*
 * The member list of the console (`GET /admin/v0/members`, docs/members.md): two columns written
 * with every member, so that both engines sort and match the very same text, and the indexes of its
 * two sorts and of its files list.
 *
 * - `name_sort`: the full name with case and accents folded (what "sort by name" orders by).
 * - `search_text`: full name, preferred name and email, folded, one per line (what `q` is found in).
 *
 * Each sort's index leads with community_id, then the sort key and the id that breaks ties, and
 * carries state and search_text, so that a page, a filter and a total are read from the index alone
 * until the page's own rows. On PostgreSQL the sort key and the id sort in byte order (`collate "C"`),
 * as SQLite does, so that both engines answer the same pages.
 *
 * `communities.members_version`: bumped with every change of members, the key of the list's totals in
 * the count cache (a COUNT over 100k members of a community costs tens of milliseconds on SQLite).
 *
 * The fold below is this migration's own (frozen): the application's (src/shared/search-text.ts,
 * foldText) writes new rows; a change of that rule is a new migration that rewrites the columns.
 */

const marks = /\p{M}+/gu;
const letterFolds: Record<string, string> = { ł: 'l', ø: 'o', đ: 'd', ð: 'd', ħ: 'h', ı: 'i', ŀ: 'l', ß: 'ss', æ: 'ae', œ: 'oe', þ: 'th' };
const foldable = new RegExp(`[${Object.keys(letterFolds).join('')}]`, 'gu');

function fold(text: string): string {
  return text
    .toLowerCase()
    .normalize('NFKD')
    .replace(marks, '')
    .replace(foldable, (letter) => letterFolds[letter] ?? letter)
    .normalize('NFC');
}

const rowsPerRead = 1000;

async function fillColumns(db: MigrationDb): Promise<void> {
  let after = { community_id: '', id: '' };
  for (;;) {
    const { rows } = await sql<{ community_id: string; id: string; full_name: string; preferred_name: string; email_norm: string }>`
      select community_id, id, full_name, preferred_name, email_norm from members
      where community_id > ${after.community_id} or (community_id = ${after.community_id} and id > ${after.id})
      order by community_id, id limit ${rowsPerRead}`.execute(db);
    for (const row of rows) {
      const nameSort = fold(row.full_name.trim());
      const searchText = `${nameSort}\n${fold(row.preferred_name)}\n${fold(row.email_norm)}`;
      await sql`update members set name_sort = ${nameSort}, search_text = ${searchText}
        where community_id = ${row.community_id} and id = ${row.id}`.execute(db);
    }
    const last = rows.at(-1);
    if (!last || rows.length < rowsPerRead) return;
    after = { community_id: last.community_id, id: last.id };
  }
}

export async function up(db: MigrationDb): Promise<void> {
  const postgres = isPostgres(db);
  await atomically(db, async (tx) => {
    if (postgres) {
      await sql`alter table members add column name_sort text collate "C" not null default ''`.execute(tx);
      await sql`alter table members add column search_text text not null default ''`.execute(tx);
    } else {
      await sql`alter table members add column name_sort text not null default ''`.execute(tx);
      await sql`alter table members add column search_text text not null default ''`.execute(tx);
    }
    await fillColumns(tx);
    // The version of the community's members, bumped by every change of them (the write path): the key
    // of the list's cached totals, as events_version and posts_version are of theirs.
    await sql`alter table communities add column members_version integer not null default 0`.execute(tx);
    const id = postgres ? sql`id collate "C"` : sql`id`;
    await sql`create index members_list_name on members (community_id, name_sort, ${id}, state, search_text)`.execute(tx);
    await sql`create index members_list_joined on members (community_id, created_at, ${id}, state, search_text)`.execute(tx);
    await sql`create index files_list_created on files (community_id, created_at, ${id})`.execute(tx);
  });
}

export async function down(db: MigrationDb): Promise<void> {
  await db.schema.dropIndex('files_list_created').ifExists().execute();
  await db.schema.dropIndex('members_list_joined').ifExists().execute();
  await db.schema.dropIndex('members_list_name').ifExists().execute();
  await db.schema.alterTable('communities').dropColumn('members_version').execute();
  await db.schema.alterTable('members').dropColumn('search_text').execute();
  await db.schema.alterTable('members').dropColumn('name_sort').execute();
}
