import { type RawBuilder, type Selectable, sql } from 'kysely';
import { batchesOf, selectInBatches } from '../../db/batches.js';
import type { Db, Engine, Tx } from '../../db/database.js';
import { lockRow } from '../../db/lock-row.js';
import { orderedRows } from '../../db/ordered-rows.js';
import { preparedQuery } from '../../db/prepared-query.js';
import type { FeedsTable, Flag } from '../../db/schema.js';

/** A feed row as stored. */
export type FeedRow = Omit<Selectable<FeedsTable>, 'community_id'>;

const feedColumns = ['id', 'chat_channel_id', 'is_archived', 'is_unlisted', 'doc', 'created_at', 'updated_at'] as const;

/** 1 when posts of a feed with these flags belong to the Home feed. */
export const homeFlag = (row: { is_archived: Flag; is_unlisted: Flag }): Flag => (row.is_archived === 0 && row.is_unlisted === 0 ? 1 : 0);

const feedRow = preparedQuery((db, p: { communityId: string; id: string }) =>
  db.selectFrom('feeds').select(feedColumns).where('community_id', '=', p.communityId).where('id', '=', p.id),
);

/** One feed of the community, or undefined. */
export async function selectFeedRow(db: Db | Tx, communityId: string, id: string): Promise<FeedRow | undefined> {
  return feedRow.first(db, { communityId, id });
}

const feedCount = preparedQuery((db, p: { communityId: string }) =>
  db
    .selectFrom('feeds')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('community_id', '=', p.communityId),
);

/** Number of feeds of the community. */
async function countFeeds(db: Db | Tx, communityId: string): Promise<number> {
  const row = await feedCount.first(db, { communityId });
  return Number(row?.n ?? 0);
}

// Oldest first, ties by id: a feed keeps its place when it is renamed or re-imported, and a
// new feed goes to the end, so a client walking the pages neither repeats nor skips one.
// A community has tens of feeds, not thousands: the primary key (community_id, id) narrows
// the scan and the sort is of that community's rows only. Each row carries the community's
// total (a window count over the same rows), so a page and its total are one statement.
const feedsPage = preparedQuery((db, p: { communityId: string; limit: number; offset: number }) =>
  db
    .selectFrom('feeds')
    .select(feedColumns)
    .select((eb) => eb.fn.countAll<number>().over().as('total'))
    .where('community_id', '=', p.communityId)
    .orderBy('created_at', 'asc')
    .orderBy('id', 'asc')
    .limit(p.limit)
    .offset(p.offset),
);

/** One page of the community's feeds, oldest first (created_at, then id), and how many feeds there are in all. */
export async function selectFeedsPage(
  db: Db | Tx,
  communityId: string,
  limit: number,
  offset: number,
): Promise<{ rows: FeedRow[]; total: number }> {
  const page = await feedsPage.all(db, { communityId, limit, offset });
  const first = page[0];
  // A page past the end has no row to carry the total: only then is it counted on its own.
  if (first === undefined) return { rows: [], total: offset === 0 ? 0 : await countFeeds(db, communityId) };
  return { rows: page.map(({ total: _total, ...row }) => row), total: Number(first.total) };
}

/** Stored feeds by id (unknown ids are absent), in batches. */
export async function selectFeedRows(db: Db | Tx, communityId: string, ids: readonly string[]): Promise<Map<string, FeedRow>> {
  const rows = await selectInBatches(ids, (batch) =>
    db.selectFrom('feeds').select(feedColumns).where('community_id', '=', communityId).where('id', 'in', batch).execute(),
  );
  return new Map(rows.map((row) => [row.id, row]));
}

/** The community's feeds, every column (the lists below narrow and order them). */
const feedsOf = (db: Db | Tx, communityId: string) => db.selectFrom('feeds').select(feedColumns).where('community_id', '=', communityId);

/** Every feed of the community bound to a channel, oldest first (`chat sync`). */
export async function selectBoundFeeds(db: Db | Tx, communityId: string): Promise<FeedRow[]> {
  return feedsOf(db, communityId).where('chat_channel_id', 'is not', null).orderBy('created_at').orderBy('id').execute();
}

/** The feeds bound to one channel (several feeds may show one channel). */
export async function selectFeedsOfChannel(db: Db | Tx, communityId: string, channelId: string): Promise<FeedRow[]> {
  return feedsOf(db, communityId).where('chat_channel_id', '=', channelId).orderBy('id').execute();
}

/** Every feed of the community, oldest first (`feed list`). */
export async function selectAllFeeds(db: Db | Tx, communityId: string): Promise<FeedRow[]> {
  return feedsOf(db, communityId).orderBy('created_at').orderBy('id').execute();
}

const feedsByChannelIds = preparedQuery((db, p: { communityId: string; channelIds: readonly string[] }) =>
  db
    .selectFrom('feeds')
    .select(['id', 'chat_channel_id', 'doc'])
    .where('community_id', '=', p.communityId)
    .where('chat_channel_id', 'in', p.channelIds)
    .orderBy('created_at'),
);

/** Feeds bound to these channels, oldest first (a channel's first feed is the one its mentions show). */
export async function selectFeedsByChannelIds(
  db: Db | Tx,
  communityId: string,
  channelIds: readonly string[],
): Promise<readonly Pick<FeedRow, 'id' | 'chat_channel_id' | 'doc'>[]> {
  return selectInBatches(channelIds, (batch) => feedsByChannelIds.all(db, { communityId, channelIds: batch }));
}

/**
 * The feeds part of the PostgreSQL statement of what a page refers to (src/references/related-rows.ts):
 * rows `(part, chat_channel_id, null, created_at, doc, id)` of the feeds bound to these channels.
 */
export const feedsByChannelIdsPart = (part: number, communityId: string, channelIds: readonly string[]): RawBuilder<unknown> =>
  sql`select ${sql.lit(part)}, f.chat_channel_id, null, f.created_at, f.doc, f.id
      from feeds f
      where f.community_id = ${communityId} and f.chat_channel_id = any(${channelIds}::text[])`;

/** Takes a feed's row lock before a read-modify-write (member counts, renames). */
export const lockFeedRow = (tx: Tx, communityId: string, id: string): Promise<void> => lockRow(tx, 'feeds', communityId, id);

/** Which of these ids are feeds of the community (import reference checks). */
export async function selectExistingFeedIds(db: Db | Tx, communityId: string, ids: readonly string[]): Promise<Set<string>> {
  const rows = await selectInBatches(ids, (batch) =>
    db.selectFrom('feeds').select('id').where('community_id', '=', communityId).where('id', 'in', batch).execute(),
  );
  return new Set(rows.map((row) => row.id));
}

/** The id of the feed bound to each of these chat channels (the oldest when several are, ties by id). */
export async function selectFeedIdsByChannel(
  db: Db | Tx,
  communityId: string,
  channelIds: readonly string[],
): Promise<Map<string, string>> {
  const feeds = new Map<string, string>();
  if (channelIds.length === 0) return feeds;
  const rows = await db
    .selectFrom('feeds')
    .select(['id', 'chat_channel_id'])
    .where('community_id', '=', communityId)
    .where('chat_channel_id', 'in', [...channelIds])
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  for (const row of rows) if (row.chat_channel_id && !feeds.has(row.chat_channel_id)) feeds.set(row.chat_channel_id, row.id);
  return feeds;
}

/** The community's feeds in byte order of id, a batch at a time (the export). */
export function feedRowsInIdOrder(tx: Db, engine: Engine, communityId: string) {
  return orderedRows(tx, engine, 'feeds', communityId, (q) =>
    q.select(['id', 'is_archived', 'is_unlisted', 'doc', 'created_at', 'updated_at']),
  );
}

/** Inserts or replaces feeds by id, in batches. */
export async function upsertFeedRows(tx: Tx, communityId: string, rows: readonly FeedRow[]): Promise<void> {
  for (const batch of batchesOf(rows)) {
    await tx
      .insertInto('feeds')
      .values(batch.map((row) => ({ community_id: communityId, ...row })))
      .onConflict((oc) =>
        oc.columns(['community_id', 'id']).doUpdateSet((eb) => ({
          chat_channel_id: eb.ref('excluded.chat_channel_id'),
          is_archived: eb.ref('excluded.is_archived'),
          is_unlisted: eb.ref('excluded.is_unlisted'),
          doc: eb.ref('excluded.doc'),
          created_at: eb.ref('excluded.created_at'),
          updated_at: eb.ref('excluded.updated_at'),
        })),
      )
      .execute();
  }
}
