import { PostgresAdapter, type RawBuilder, type Selectable, sql } from 'kysely';
import { batchesOf, selectInBatches } from '../../db/batches.js';
import type { Db, Engine, Tx } from '../../db/database.js';
import { orderedRows } from '../../db/ordered-rows.js';
import { type PreparedQuery, preparedQuery, preparedWrite } from '../../db/prepared-query.js';
import type { ChatInvitationsTable, MembersTable } from '../../db/schema.js';
import { foldText } from '../../shared/search-text.js';
import type { EpochMicros } from '../../shared/time.js';
import type { MemberState } from './members.schemas.js';

/**
 * The list's sort key and search text of a member (migration 019 wrote the rows before it with the
 * same rule): the full name folded (case, accents: foldText), and full name, preferred name and
 * email folded, one a line, so that `q` never matches across two of them.
 */
function memberListColumns(fullName: string, preferredName: string, emailNorm: string): { name_sort: string; search_text: string } {
  const nameSort = foldText(fullName.trim());
  return { name_sort: nameSort, search_text: `${nameSort}\n${foldText(preferredName)}\n${foldText(emailNorm)}` };
}

const isPostgresDb = (db: Db | Tx): boolean => db.getExecutor().adapter instanceof PostgresAdapter;

export type MemberRow = Omit<Selectable<MembersTable>, 'community_id' | 'name_sort' | 'search_text'>;

/** The list's sort and search columns of a member's names and email (written with every change of them). */
function listColumnsOf(row: Pick<MemberRow, 'full_name' | 'preferred_name' | 'email_norm'>): {
  name_sort: string;
  search_text: string;
} {
  return memberListColumns(row.full_name, row.preferred_name, row.email_norm);
}

const memberColumns = [
  'id',
  'email',
  'email_norm',
  'full_name',
  'preferred_name',
  'avatar_url_original',
  'chat_profile_id',
  'state',
  'created_at',
  'updated_at',
] as const;

/** The member holding a normalised email, or undefined. */
export async function selectMemberByEmail(db: Db | Tx, communityId: string, emailNorm: string): Promise<MemberRow | undefined> {
  return db
    .selectFrom('members')
    .select(memberColumns)
    .where('community_id', '=', communityId)
    .where('email_norm', '=', emailNorm)
    .executeTakeFirst();
}

/** The member with this id, or undefined. */
export async function selectMemberById(db: Db | Tx, communityId: string, id: string): Promise<MemberRow | undefined> {
  return db.selectFrom('members').select(memberColumns).where('community_id', '=', communityId).where('id', '=', id).executeTakeFirst();
}

/**
 * Inserts a member unless its email is already held; false when it is (a concurrent add may have
 * won the race), which the caller turns into the update path.
 */
export async function insertMemberIfEmailFree(tx: Tx, communityId: string, row: MemberRow): Promise<boolean> {
  const inserted = (await insertMemberUnlessEmailTaken.execute(tx, { community_id: communityId, ...row, ...listColumnsOf(row) })) > 0;
  if (inserted) await indexMembers(tx, communityId, [row.id]);
  return inserted;
}

// Compiled once: a member add runs it on every request, and building it costs more than SQLite's insert.
const insertMemberUnlessEmailTaken = preparedWrite(
  (tx: Tx, p: MemberRow & { community_id: string; name_sort: string; search_text: string }) =>
    tx
      .insertInto('members')
      .values(p)
      .onConflict((oc) => oc.columns(['community_id', 'email_norm']).doNothing()),
);

/** Rewrites the changeable fields of a member. */
export async function updateMember(
  tx: Tx,
  communityId: string,
  id: string,
  changes: Pick<
    MemberRow,
    'email_norm' | 'full_name' | 'preferred_name' | 'avatar_url_original' | 'chat_profile_id' | 'state' | 'updated_at'
  >,
): Promise<void> {
  const { email_norm: _emailNorm, ...columns } = changes;
  await tx
    .updateTable('members')
    .set({ ...columns, ...listColumnsOf(changes) })
    .where('community_id', '=', communityId)
    .where('id', '=', id)
    .execute();
  await indexMembers(tx, communityId, [id]);
}

/** Deactivates an active member; false when it was not active any more (a concurrent call won). */
export async function deactivateActiveMember(tx: Tx, communityId: string, id: string, now: EpochMicros): Promise<boolean> {
  const result = await tx
    .updateTable('members')
    .set({ state: 'deactivated', updated_at: now })
    .where('community_id', '=', communityId)
    .where('id', '=', id)
    .where('state', '=', 'active')
    .executeTakeFirst();
  const changed = Number(result.numUpdatedRows) > 0;
  if (changed && !isPostgresDb(tx)) {
    // The text is unchanged: the entry's state is all that moves (no FTS5 rewrite).
    await tx
      .updateTable('member_search')
      .set({ state: 'deactivated' })
      .where('community_id', '=', communityId)
      .where('member_id', '=', id)
      .execute();
  }
  return changed;
}

const memberStateByEmail = preparedQuery((db, p: { communityId: string; emailNorm: string }) =>
  db.selectFrom('members').select('state').where('community_id', '=', p.communityId).where('email_norm', '=', p.emailNorm),
);

/** The state of the member holding a normalised email, or undefined. */
export async function selectMemberStateByEmail(db: Db | Tx, communityId: string, emailNorm: string): Promise<MemberState | undefined> {
  return (await memberStateByEmail.first(db, { communityId, emailNorm }))?.state;
}

/** Inserts or replaces members by id (the import); the caller settles created_at (given, or the stored one). */
export async function upsertMembersById(tx: Tx, communityId: string, rows: MemberRow[]): Promise<void> {
  for (const batch of batchesOf(rows)) {
    await tx
      .insertInto('members')
      .values(batch.map((row) => ({ community_id: communityId, ...row, ...listColumnsOf(row) })))
      .onConflict((oc) =>
        oc.columns(['community_id', 'id']).doUpdateSet((eb) => ({
          name_sort: eb.ref('excluded.name_sort'),
          search_text: eb.ref('excluded.search_text'),
          email: eb.ref('excluded.email'),
          email_norm: eb.ref('excluded.email_norm'),
          full_name: eb.ref('excluded.full_name'),
          preferred_name: eb.ref('excluded.preferred_name'),
          avatar_url_original: eb.ref('excluded.avatar_url_original'),
          chat_profile_id: eb.ref('excluded.chat_profile_id'),
          state: eb.ref('excluded.state'),
          created_at: eb.ref('excluded.created_at'),
          updated_at: eb.ref('excluded.updated_at'),
        })),
      )
      .execute();
    await indexMembers(
      tx,
      communityId,
      batch.map((row) => row.id),
    );
  }
}

/** Members of the community holding any of these normalised emails: email_norm → id (import conflict check). */
export async function selectMemberIdsByEmails(
  db: Db | Tx,
  communityId: string,
  emailNorms: readonly string[],
): Promise<Map<string, string>> {
  const rows = await selectInBatches(emailNorms, (batch) =>
    db
      .selectFrom('members')
      .select(['id', 'email_norm'])
      .where('community_id', '=', communityId)
      .where('email_norm', 'in', batch)
      .execute(),
  );
  return new Map(rows.map((row) => [row.email_norm, row.id]));
}

/** created_at of the given members that exist (a re-import without timestamps keeps it). */
export async function selectMemberCreatedAt(db: Db | Tx, communityId: string, ids: readonly string[]): Promise<Map<string, EpochMicros>> {
  const rows = await selectInBatches(ids, (batch) =>
    db.selectFrom('members').select(['id', 'created_at']).where('community_id', '=', communityId).where('id', 'in', batch).execute(),
  );
  return new Map(rows.map((row) => [row.id, row.created_at]));
}

/** The community's members in byte order of id, a batch at a time (the export). */
export function memberRowsInIdOrder(tx: Db, engine: Engine, communityId: string) {
  return orderedRows(tx, engine, 'members', communityId, (q) =>
    q.select(['id', 'email', 'full_name', 'preferred_name', 'avatar_url_original', 'chat_profile_id', 'state', 'created_at', 'updated_at']),
  );
}

/** Members holding one of these normalised emails that are linked to no chat profile yet. */
export async function selectUnlinkedMembersByEmails(tx: Tx, communityId: string, emailNorms: readonly string[]): Promise<MemberRow[]> {
  return tx
    .selectFrom('members')
    .selectAll()
    .where('community_id', '=', communityId)
    .where('email_norm', 'in', emailNorms)
    .where('chat_profile_id', 'is', null)
    .execute();
}

/** Links a member to its chat profile (nothing the list searches, filters or sorts by changes: the index is left as it is). */
export async function linkMemberToProfile(
  tx: Tx,
  communityId: string,
  memberId: string,
  profileId: string,
  now: EpochMicros,
): Promise<void> {
  await tx
    .updateTable('members')
    .set({ chat_profile_id: profileId, updated_at: now })
    .where('community_id', '=', communityId)
    .where('id', '=', memberId)
    .execute();
}

export type ChatInvitationStatus = ChatInvitationsTable['status'];

/** channel_ids: a JSON array of the channel ids the invitation used. */
export type ChatInvitationRow = Omit<Selectable<ChatInvitationsTable>, 'community_id'>;

/** Who an invitation is for: an email, and the community profile with that email when there is one. */
export interface Invitee {
  emailNorm: string;
  profileId: string | null;
}

/**
 * The latest outstanding (pending) invitation of an email, or of the profile that holds it
 * (a profile whose email changed since it was invited still counts as invited).
 */
export async function selectPendingInvitation(db: Db | Tx, communityId: string, invitee: Invitee): Promise<ChatInvitationRow | undefined> {
  return db
    .selectFrom('chat_invitations')
    .select(['id', 'email_norm', 'profile_id', 'member_id', 'status', 'channel_ids', 'created_at', 'updated_at'])
    .where('community_id', '=', communityId)
    .where('status', '=', 'pending')
    .where((eb) => {
      const byEmail = eb('email_norm', '=', invitee.emailNorm);
      return invitee.profileId === null ? byEmail : eb.or([byEmail, eb('profile_id', '=', invitee.profileId)]);
    })
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .executeTakeFirst();
}

/** Records one invitation attempt. */
export async function insertInvitation(tx: Tx, communityId: string, row: ChatInvitationRow): Promise<void> {
  await tx
    .insertInto('chat_invitations')
    .values({ community_id: communityId, ...row })
    .execute();
}

/** Hands a pending invitation (and the profile it holds) over to a member. */
export async function adoptInvitation(tx: Tx, communityId: string, id: string, memberId: string, now: EpochMicros): Promise<void> {
  await tx
    .updateTable('chat_invitations')
    .set({ member_id: memberId, updated_at: now })
    .where('community_id', '=', communityId)
    .where('id', '=', id)
    .execute();
}

/** Moves every pending invitation of an invitee to a final status; returns how many changed. */
export async function closePendingInvitations(
  tx: Tx,
  communityId: string,
  invitee: Invitee,
  status: 'accepted' | 'cancelled',
  now: EpochMicros,
): Promise<number> {
  const result = await tx
    .updateTable('chat_invitations')
    .set({ status, updated_at: now })
    .where('community_id', '=', communityId)
    .where('status', '=', 'pending')
    .where((eb) => {
      const byEmail = eb('email_norm', '=', invitee.emailNorm);
      return invitee.profileId === null ? byEmail : eb.or([byEmail, eb('profile_id', '=', invitee.profileId)]);
    })
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/*
 * The substring index of the list's `q` on SQLite (migration 024, docs/members.md): every writer of
 * members above calls indexMembers in its transaction, which copies the members' list columns to
 * member_search and their search_text to member_search_fts. PostgreSQL indexes members.search_text
 * itself (pg_trgm), so there is nothing to write there.
 */

/** SQLite: the largest doc_id, 0 when there is none (the end of the INTEGER PRIMARY KEY's b-tree). */
async function lastSearchDocId(tx: Tx): Promise<number> {
  const row = await tx
    .selectFrom('member_search')
    .select((eb) => eb.fn.max('doc_id').as('last'))
    .executeTakeFirst();
  return Number(row?.last ?? 0);
}

/** Writes the index entries of these members as they are now stored (SQLite; nothing on PostgreSQL). */
async function indexMembers(tx: Tx, communityId: string, ids: readonly string[]): Promise<void> {
  if (isPostgresDb(tx)) return;
  for (const batch of batchesOf(ids)) {
    const rows = await tx
      .selectFrom('members')
      .select(['id', 'state', 'name_sort', 'created_at', 'search_text'])
      .where('community_id', '=', communityId)
      .where('id', 'in', batch)
      .execute();
    if (rows.length === 0) continue;
    const lastDocId = await lastSearchDocId(tx);
    const written = await tx
      .insertInto('member_search')
      .values(
        rows.map((row) => ({
          community_id: communityId,
          member_id: row.id,
          state: row.state,
          name_sort: row.name_sort,
          created_at: row.created_at,
        })),
      )
      .onConflict((oc) =>
        oc.columns(['community_id', 'member_id']).doUpdateSet((eb) => ({
          state: eb.ref('excluded.state'),
          name_sort: eb.ref('excluded.name_sort'),
          created_at: eb.ref('excluded.created_at'),
        })),
      )
      .returning(['member_id', 'doc_id'])
      .execute();
    const texts = new Map(rows.map((row) => [row.id, row.search_text]));
    // A contentless FTS5 table cannot tell whether a rowid holds a row: a replace records a deletion
    // whatever it holds, so a new entry (a doc_id past the last one) is a plain insert.
    const fresh: RawBuilder<unknown>[] = [];
    const replaced: RawBuilder<unknown>[] = [];
    for (const { member_id, doc_id } of written) {
      (doc_id > lastDocId ? fresh : replaced).push(sql`(${doc_id}, ${texts.get(member_id) ?? ''})`);
    }
    for (const part of batchesOf(fresh, 200)) {
      await sql`insert into member_search_fts (rowid, search_text) values ${sql.join(part)}`.execute(tx);
    }
    for (const part of batchesOf(replaced, 200)) {
      await sql`insert or replace into member_search_fts (rowid, search_text) values ${sql.join(part)}`.execute(tx);
    }
  }
}

/**
 * What the member list filters on: a state (null: active and deactivated), a LIKE pattern of the
 * folded query (null: none) and, when that text has 3 characters or more, the same text as an FTS5
 * phrase (trigrams: a shorter text has none, and is looked for by the pattern alone).
 */
export interface MemberListFilter {
  state: 'active' | 'deactivated' | null;
  pattern: string | null;
  phrase: string | null;
}

/** The member list's orders: by folded full name or by creation, each way; ties by id the same way. */
export type MemberListSort = 'name' | '-name' | 'joined_at' | '-joined_at';

type PageParams = { communityId: string; state: string; pattern: string; phrase: string; limit: number; offset: number };
type CountParams = { communityId: string; state: string; pattern: string; phrase: string };

const pageQueries = new Map<string, PreparedQuery<PageParams, never>>();
const countQueries = new Map<string, PreparedQuery<CountParams, never>>();

/** How a filter is asked: by state or not, and its text by no text, the pattern alone, or the substring index. */
type TextForm = 'none' | 'pattern' | 'indexed';

const textFormOf = (filter: MemberListFilter): TextForm =>
  filter.pattern === null ? 'none' : filter.phrase === null ? 'pattern' : 'indexed';

function pageQuery(sort: MemberListSort, filter: MemberListFilter) {
  const shape = `${sort} ${filter.state !== null} ${textFormOf(filter)}`;
  let query = pageQueries.get(shape) as ReturnType<typeof buildPageQuery> | undefined;
  if (!query) {
    query = buildPageQuery(sort, filter.state !== null, textFormOf(filter));
    pageQueries.set(shape, query as never);
  }
  return query;
}

/**
 * SQLite, a text of 3 characters or more: the ids of the page's members, found by the FTS5 phrase
 * (rowid = member_search.doc_id) and ordered and paged on member_search's copy of the list columns,
 * so that only the page's own rows are read from members. The joins are driven from the FTS5 table
 * and then from the page (`cross join` fixes SQLite's order): the matches are what is few, and
 * `members` in the sort's order would otherwise be scanned for them (its index serves the order).
 */
function indexedPageIds(p: PageParams, byState: boolean, key: 'name_sort' | 'created_at', direction: 'asc' | 'desc') {
  const state = byState ? sql`s.state = ${p.state}` : sql`s.state in ('active', 'deactivated')`;
  const order = sql.raw(`s.${key} ${direction}, s.member_id ${direction}`);
  return sql`(select s.member_id from member_search_fts f cross join member_search s on s.doc_id = f.rowid
    where member_search_fts match ${p.phrase} and s.community_id = ${p.communityId} and ${state}
    order by ${order} limit ${p.limit} offset ${p.offset})`;
}

function buildPageQuery(sort: MemberListSort, byState: boolean, text: TextForm) {
  const direction = sort.startsWith('-') ? 'desc' : 'asc';
  const key = sort.endsWith('name') ? 'name_sort' : 'created_at';
  return preparedQuery((db, p: PageParams) => {
    const postgres = isPostgresDb(db);
    if (text === 'indexed' && !postgres) {
      return db
        .selectFrom(indexedPageIds(p, byState, key, direction).as('p'))
        .crossJoin('members as m')
        .select(memberColumns.map((column) => `m.${column}` as const))
        .where('m.community_id', '=', p.communityId)
        .where(sql<boolean>`m.id = p.member_id`)
        .orderBy(`m.${key}`, direction)
        .orderBy('m.id', direction);
    }
    // PostgreSQL: the id in byte order, as the index (migration 019) and SQLite have it.
    const id = postgres ? sql`id collate "C"` : sql`id`;
    if (text === 'indexed') {
      // PostgreSQL, 3 characters or more: the matches first, from the trigram index (migration 024),
      // then sorted. Asked in one query, the planner would walk the sort's index until a page is
      // filled, expecting matches all along, and reads most of the community for a text whose
      // matches sort last (`zoe` by name: 28 ms where this takes 6, at 100k members).
      return db
        .with(
          (cte) => cte('matches').materialized(),
          (qb) =>
            qb
              .selectFrom('members')
              .select(memberColumns)
              .select('name_sort')
              .where('community_id', '=', p.communityId)
              .$if(byState, (q) => q.where('state', '=', p.state as MemberState))
              .$if(!byState, (q) => q.where('state', 'in', ['active', 'deactivated']))
              .where(sql<boolean>`search_text like ${p.pattern} escape '\\'`),
        )
        .selectFrom('matches')
        .select(memberColumns)
        .orderBy(key, direction)
        .orderBy(id, direction)
        .limit(p.limit)
        .offset(p.offset);
    }
    return db
      .selectFrom('members')
      .select(memberColumns)
      .where('community_id', '=', p.communityId)
      .$if(byState, (qb) => qb.where('state', '=', p.state as MemberState))
      .$if(!byState, (qb) => qb.where('state', 'in', ['active', 'deactivated']))
      .$if(text !== 'none', (qb) => qb.where(sql<boolean>`search_text like ${p.pattern} escape '\\'`))
      .orderBy(key, direction)
      .orderBy(id, direction)
      .limit(p.limit)
      .offset(p.offset);
  });
}

function countQuery(filter: MemberListFilter) {
  const shape = `${filter.state !== null} ${textFormOf(filter)}`;
  let query = countQueries.get(shape) as ReturnType<typeof buildCountQuery> | undefined;
  if (!query) {
    query = buildCountQuery(filter.state !== null, textFormOf(filter));
    countQueries.set(shape, query as never);
  }
  return query;
}

function buildCountQuery(byState: boolean, text: TextForm) {
  return preparedQuery((db, p: CountParams) => {
    if (text === 'indexed' && !isPostgresDb(db)) {
      // The matches of the phrase, counted on member_search alone (no members row is read).
      return db
        .selectFrom(sql`member_search_fts`.as('f'))
        .crossJoin('member_search as s')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where(sql<boolean>`s.doc_id = f.rowid and member_search_fts match ${p.phrase}`)
        .where('s.community_id', '=', p.communityId)
        .$if(byState, (qb) => qb.where('s.state', '=', p.state as MemberState))
        .$if(!byState, (qb) => qb.where('s.state', 'in', ['active', 'deactivated']));
    }
    return db
      .selectFrom('members')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('community_id', '=', p.communityId)
      .$if(byState, (qb) => qb.where('state', '=', p.state as MemberState))
      .$if(!byState, (qb) => qb.where('state', 'in', ['active', 'deactivated']))
      .$if(text !== 'none', (qb) => qb.where(sql<boolean>`search_text like ${p.pattern} escape '\\'`));
  });
}

/** One page of the community's members (`GET /members`), in the sort's order, ties by id. */
export async function selectMembersPage(
  db: Db,
  communityId: string,
  filter: MemberListFilter,
  sort: MemberListSort,
  limit: number,
  offset: number,
): Promise<(MemberRow & { state: MemberState })[]> {
  return pageQuery(sort, filter).all(db, {
    communityId,
    state: filter.state ?? '',
    pattern: filter.pattern ?? '',
    phrase: filter.phrase ?? '',
    limit,
    offset,
  }) as Promise<(MemberRow & { state: MemberState })[]>;
}

/** How many members the list's filter holds (the exact total of its envelope). */
export async function countMembers(db: Db, communityId: string, filter: MemberListFilter): Promise<number> {
  const params = { communityId, state: filter.state ?? '', pattern: filter.pattern ?? '', phrase: filter.phrase ?? '' };
  const row = (await countQuery(filter).first(db, params)) as { n: number | string } | undefined;
  return Number(row?.n ?? 0);
}
