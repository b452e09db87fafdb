import { PostgresAdapter, type Selectable, sql } from 'kysely';
import { batchesOf, selectInBatches } from '../../db/batches.js';
import type { Db, Engine, Tx } from '../../db/database.js';
import { orderedRows } from '../../db/ordered-rows.js';
import { type PreparedQuery, preparedQuery, preparedWrite } from '../../db/prepared-query.js';
import type { ChatInvitationsTable, MembersTable } from '../../db/schema.js';
import { type EpochMicros, epochMicros } from '../../shared/time.js';
import { memberListColumns } from './members.rules.js';
import type { Member, MemberState } from './members.schemas.js';

export type MemberRow = Omit<Selectable<MembersTable>, 'community_id' | 'name_sort' | 'search_text'>;

/** The list's sort and search columns of a member's names and email (written with every change of them). */
export function listColumnsOf(row: Pick<MemberRow, 'full_name' | 'preferred_name' | 'email_norm'>): {
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

/** The API member of a stored row. */
export function toMember(row: MemberRow): Member {
  return {
    id: row.id,
    email: row.email,
    full_name: row.full_name,
    preferred_name: row.preferred_name,
    avatar_url_original: row.avatar_url_original,
    chat_profile_id: row.chat_profile_id,
  };
}

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
  return (await insertMemberUnlessEmailTaken.execute(tx, { community_id: communityId, ...row, ...listColumnsOf(row) })) > 0;
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
  return Number(result.numUpdatedRows) > 0;
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
  return new Map(rows.map((row) => [row.id, epochMicros(Number(row.created_at))]));
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

/** Links a member to its chat profile. */
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

/** What the member list filters on: a state (null: active and deactivated) and a LIKE pattern of the folded query (null: none). */
export interface MemberListFilter {
  state: 'active' | 'deactivated' | null;
  pattern: string | null;
}

/** The member list's orders: by folded full name or by creation, each way; ties by id the same way. */
export type MemberListSort = 'name' | '-name' | 'joined_at' | '-joined_at';

const isPostgresDb = (db: Db | Tx): boolean => db.getExecutor().adapter instanceof PostgresAdapter;

type PageParams = { communityId: string; state: string; pattern: string; limit: number; offset: number };
type CountParams = { communityId: string; state: string; pattern: string };

const pageQueries = new Map<string, PreparedQuery<PageParams, never>>();
const countQueries = new Map<string, PreparedQuery<CountParams, never>>();

function pageQuery(sort: MemberListSort, filter: MemberListFilter) {
  const shape = `${sort} ${filter.state !== null} ${filter.pattern !== null}`;
  let query = pageQueries.get(shape) as ReturnType<typeof buildPageQuery> | undefined;
  if (!query) {
    query = buildPageQuery(sort, filter.state !== null, filter.pattern !== null);
    pageQueries.set(shape, query as never);
  }
  return query;
}

function buildPageQuery(sort: MemberListSort, byState: boolean, byText: boolean) {
  const direction = sort.startsWith('-') ? 'desc' : 'asc';
  const key = sort.endsWith('name') ? 'name_sort' : 'created_at';
  return preparedQuery((db, p: PageParams) => {
    // PostgreSQL: the id in byte order, as the index (migration 019) and SQLite have it.
    const id = isPostgresDb(db) ? sql`id collate "C"` : sql`id`;
    return db
      .selectFrom('members')
      .select(memberColumns)
      .where('community_id', '=', p.communityId)
      .$if(byState, (qb) => qb.where('state', '=', p.state as MemberState))
      .$if(!byState, (qb) => qb.where('state', 'in', ['active', 'deactivated']))
      .$if(byText, (qb) => qb.where(sql<boolean>`search_text like ${p.pattern} escape '\\'`))
      .orderBy(key, direction)
      .orderBy(id, direction)
      .limit(p.limit)
      .offset(p.offset);
  });
}

function countQuery(filter: MemberListFilter) {
  const shape = `${filter.state !== null} ${filter.pattern !== null}`;
  let query = countQueries.get(shape) as ReturnType<typeof buildCountQuery> | undefined;
  if (!query) {
    query = buildCountQuery(filter.state !== null, filter.pattern !== null);
    countQueries.set(shape, query as never);
  }
  return query;
}

function buildCountQuery(byState: boolean, byText: boolean) {
  return preparedQuery((db, p: CountParams) =>
    db
      .selectFrom('members')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('community_id', '=', p.communityId)
      .$if(byState, (qb) => qb.where('state', '=', p.state as MemberState))
      .$if(!byState, (qb) => qb.where('state', 'in', ['active', 'deactivated']))
      .$if(byText, (qb) => qb.where(sql<boolean>`search_text like ${p.pattern} escape '\\'`)),
  );
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
    limit,
    offset,
  }) as Promise<(MemberRow & { state: MemberState })[]>;
}

/** How many members the list's filter holds (the exact total of its envelope). */
export async function countMembers(db: Db, communityId: string, filter: MemberListFilter): Promise<number> {
  const row = (await countQuery(filter).first(db, { communityId, state: filter.state ?? '', pattern: filter.pattern ?? '' })) as
    | { n: number | string }
    | undefined;
  return Number(row?.n ?? 0);
}
