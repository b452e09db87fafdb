import { CompiledQuery, type Insertable, type Selectable, type SelectQueryBuilder } from 'kysely';
import type { Db, Tx } from '../../db/database.js';
import { holdUntilNextStatement, sessionStatement, sqlLiteral } from '../../db/pg-statements.js';
import { preparedQuery } from '../../db/prepared-query.js';
import type { ActivitiesTable, DB } from '../../db/schema.js';
import { andThen } from '../../shared/maybe-async.js';
import type { EpochMicros } from '../../shared/time.js';
import { chainHash } from './activities.records.js';

/*
 * Every statement on `activities` and `activity_chain_heads` (docs/activity.md). The append is the
 * hot one: it runs in every change's transaction, just before the commit.
 */

/** A record as the write path hands it over: everything but its place in the chain. */
export type NewActivityRow = Omit<Insertable<ActivitiesTable>, 'seq' | 'prev_hash' | 'hash'>;

const selectHead = preparedQuery((db, p: { communityId: string }) =>
  db.selectFrom('activity_chain_heads').select(['seq', 'hash']).where('community_id', '=', p.communityId),
);

const insertActivity = preparedQuery(
  (
    db,
    p: {
      community_id: string;
      seq: number;
      id: string;
      occurred_at: number;
      action: string;
      actor_type: string;
      actor_id: string | null;
      actor_label: string | null;
      target_type: string;
      target_id: string | null;
      target_name: string | null;
      context: string | null;
      changes: string | null;
      metadata: string | null;
      prev_hash: string;
      hash: string;
    },
  ) => db.insertInto('activities').values({ ...p, occurred_at: p.occurred_at as EpochMicros }),
);

const upsertHead = preparedQuery((db, p: { communityId: string; seq: number; prevHash: string; hash: string }) =>
  db
    .insertInto('activity_chain_heads')
    .values({ community_id: p.communityId, seq: p.seq, prev_hash: p.prevHash, hash: p.hash })
    .onConflict((oc) => oc.column('community_id').doUpdateSet({ seq: p.seq, prev_hash: p.prevHash, hash: p.hash })),
);

/**
 * PostgreSQL's append: one statement that moves the community's head and inserts the record with
 * the head's new seq and hash, the hash computed by the server from the head it finds. The head's
 * row lock (INSERT ... ON CONFLICT DO UPDATE takes it, and always sees the latest committed head)
 * makes concurrent writers of a community chain one after the other: no fork, no gap. Sent with
 * the commit (a held session statement): the lock is held only for the commit's instant, and the
 * record costs the write no round trip of its own.
 */
const executeAppendActivity = sessionStatement(
  'ca_s_append_activity',
  ['text', 'text', 'bigint', 'text', 'text', 'text', 'text', 'text', 'text', 'text', 'text', 'text', 'text', 'text'],
  `with head as (
    insert into "activity_chain_heads" as h ("community_id", "seq", "prev_hash", "hash")
    values ($1, 1, '', encode(sha256(convert_to($14, 'UTF8')), 'hex'))
    on conflict ("community_id") do update set "seq" = h."seq" + 1, "prev_hash" = h."hash",
      "hash" = encode(sha256(decode(h."hash", 'hex') || convert_to($14, 'UTF8')), 'hex')
    returning "seq", "prev_hash", "hash")
  insert into "activities" ("community_id", "seq", "id", "occurred_at", "action", "actor_type", "actor_id", "actor_label",
    "target_type", "target_id", "target_name", "context", "changes", "metadata", "prev_hash", "hash")
  select $1, "seq", $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, "prev_hash", "hash" from head`,
);

const literal = (value: string | number | null): string => (value === null ? 'null' : sqlLiteral(value));

/**
 * Appends a record to its community's chain. `canonical`: the record's canonical text, which the
 * hash covers after the previous record's hash. On PostgreSQL with `withCommit` the statement goes
 * with the commit, which must be the transaction's next statement; on SQLite (one writer at a
 * time: the write path's transaction holds the lock) the head is read and the hash computed here.
 */
export function appendActivity(
  tx: Tx,
  postgres: boolean,
  withCommit: boolean,
  row: NewActivityRow,
  canonical: string,
): void | Promise<void> {
  if (postgres) {
    const text = executeAppendActivity(
      ...[
        row.community_id,
        row.id,
        Number(row.occurred_at),
        row.action,
        row.actor_type,
        row.actor_id ?? null,
        row.actor_label ?? null,
        row.target_type,
        row.target_id ?? null,
        row.target_name ?? null,
        row.context ?? null,
        row.changes ?? null,
        row.metadata ?? null,
        canonical,
      ].map(literal),
    );
    return tx.executeQuery(CompiledQuery.raw(withCommit ? holdUntilNextStatement(text) : text)).then(() => undefined);
  }
  // SQLite: no promise between the three statements (each runs at once on the write path's
  // transaction): an append is on every write, where a promise per statement shows.
  return andThen(selectHead.firstNow(tx, { communityId: row.community_id }), (head) => {
    const seq = head ? Number(head.seq) + 1 : 1;
    const prevHash = head?.hash ?? '';
    const hash = chainHash(prevHash, canonical);
    const inserted = insertActivity.executeNow(tx, {
      community_id: row.community_id,
      seq,
      id: row.id,
      occurred_at: Number(row.occurred_at),
      action: row.action,
      actor_type: row.actor_type,
      actor_id: row.actor_id ?? null,
      actor_label: row.actor_label ?? null,
      target_type: row.target_type,
      target_id: row.target_id ?? null,
      target_name: row.target_name ?? null,
      context: row.context ?? null,
      changes: row.changes ?? null,
      metadata: row.metadata ?? null,
      prev_hash: prevHash,
      hash,
    });
    return andThen(inserted, () =>
      andThen(upsertHead.executeNow(tx, { communityId: row.community_id, seq, prevHash, hash }), () => undefined),
    );
  });
}

/** The filters of a page of the log (all optional; `actionPrefix` is `calendar_event.` for `calendar_event.*`). */
export interface ActivityFilter {
  action?: string;
  actionPrefix?: string;
  actorType?: string;
  actorId?: string;
  targetType?: string;
  targetId?: string;
  since?: EpochMicros;
  until?: EpochMicros;
}

function filtered<O>(query: SelectQueryBuilder<DB, 'activities', O>, communityId: string, filter: ActivityFilter) {
  let q = query.where('community_id', '=', communityId);
  if (filter.action !== undefined) q = q.where('action', '=', filter.action);
  // A range rather than LIKE: the index on (community_id, action, seq) serves it on both engines.
  if (filter.actionPrefix !== undefined)
    q = q.where('action', '>=', filter.actionPrefix).where('action', '<', `${filter.actionPrefix.slice(0, -1)}/`);
  if (filter.actorType !== undefined) q = q.where('actor_type', '=', filter.actorType);
  if (filter.actorId !== undefined) q = q.where('actor_id', '=', filter.actorId);
  if (filter.targetType !== undefined) q = q.where('target_type', '=', filter.targetType);
  if (filter.targetId !== undefined) q = q.where('target_id', '=', filter.targetId);
  if (filter.since !== undefined) q = q.where('occurred_at', '>=', filter.since);
  if (filter.until !== undefined) q = q.where('occurred_at', '<', filter.until);
  return q;
}

/** A page of a community's records, newest first (chain order). */
export const selectActivityPage = (db: Db, communityId: string, filter: ActivityFilter, limit: number, offset: number) =>
  filtered(db.selectFrom('activities').selectAll(), communityId, filter).orderBy('seq', 'desc').limit(limit).offset(offset).execute();

/** How many records the filter matches, within seqs `from` to `to` (inclusive) when given. */
export async function countActivities(
  db: Db,
  communityId: string,
  filter: ActivityFilter,
  seqs: { from?: number; to?: number } = {},
): Promise<number> {
  let query = filtered(
    db.selectFrom('activities').select((eb) => eb.fn.countAll().as('n')),
    communityId,
    filter,
  );
  if (seqs.from !== undefined) query = query.where('seq', '>=', seqs.from);
  if (seqs.to !== undefined) query = query.where('seq', '<=', seqs.to);
  const row = await query.executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** The community's first and last seqs (two reads of the primary key's ends), null without records. */
export async function selectSeqBounds(db: Db, communityId: string): Promise<{ first: number; last: number } | null> {
  const end = (direction: 'asc' | 'desc') =>
    db.selectFrom('activities').select('seq').where('community_id', '=', communityId).orderBy('seq', direction).limit(1).executeTakeFirst();
  const [first, last] = await Promise.all([end('asc'), end('desc')]);
  return first && last ? { first: Number(first.seq), last: Number(last.seq) } : null;
}

/** A community's records in chain order, `batch` at a time (verify, export; filtered for a download): memory stays flat. */
export async function* activityRowsInChainOrder(
  db: Db,
  communityId: string,
  filter: ActivityFilter = {},
  batch = 1000,
): AsyncGenerator<Selectable<ActivitiesTable>[]> {
  let after = Number.MIN_SAFE_INTEGER;
  for (;;) {
    const rows = await filtered(db.selectFrom('activities').selectAll(), communityId, filter)
      .where('seq', '>', after)
      .orderBy('seq')
      .limit(batch)
      .execute();
    if (rows.length === 0) return;
    yield rows;
    if (rows.length < batch) return;
    after = Number(rows[rows.length - 1]?.seq);
  }
}

/** The head of a community's chain (its last record's seq and hash), if it has one. */
export const selectChainHead = (db: Db | Tx, communityId: string) =>
  db.selectFrom('activity_chain_heads').select(['seq', 'hash']).where('community_id', '=', communityId).executeTakeFirst();

/** The community's first record in chain order (an import places its records before it). */
export const selectFirstActivity = (tx: Tx, communityId: string) =>
  tx
    .selectFrom('activities')
    .select(['seq', 'prev_hash'])
    .where('community_id', '=', communityId)
    .orderBy('seq')
    .limit(1)
    .executeTakeFirst();

/** Whether the community holds a record with this id. */
export async function activityExists(tx: Tx, communityId: string, id: string): Promise<boolean> {
  const row = await tx
    .selectFrom('activities')
    .select('seq')
    .where('community_id', '=', communityId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row !== undefined;
}

/** Inserts imported records as they are (seq, prev_hash, hash given). */
export async function insertImportedActivities(tx: Tx, rows: readonly Insertable<ActivitiesTable>[]): Promise<void> {
  if (rows.length > 0)
    await tx
      .insertInto('activities')
      .values([...rows])
      .execute();
}

/** Sets a community's head (an import into a community without records starts its chain). */
export async function setChainHead(tx: Tx, communityId: string, head: { seq: number; prev_hash: string; hash: string }): Promise<void> {
  await upsertHead.execute(tx, { communityId, seq: head.seq, prevHash: head.prev_hash, hash: head.hash });
}

/** The communities that have records (retention walks them). */
export const communitiesWithActivities = (db: Db) => db.selectFrom('activity_chain_heads').select('community_id').execute();

/**
 * Removes the oldest records of a community older than `cutoff`, at most `limit`, always a prefix
 * of the chain in seq order (so the first kept record anchors what remains); answers how many.
 */
export async function pruneOldestActivities(db: Db, communityId: string, cutoff: EpochMicros, limit: number): Promise<number> {
  const oldest = await db
    .selectFrom('activities')
    .select(['seq', 'occurred_at'])
    .where('community_id', '=', communityId)
    .orderBy('seq')
    .limit(limit)
    .execute();
  let last: number | undefined;
  for (const row of oldest) {
    if (Number(row.occurred_at) >= cutoff) break;
    last = Number(row.seq);
  }
  if (last === undefined) return 0;
  const result = await db.deleteFrom('activities').where('community_id', '=', communityId).where('seq', '<=', last).executeTakeFirst();
  return Number(result.numDeletedRows);
}
