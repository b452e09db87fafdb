import type { Selectable } from 'kysely';
import { batchesOf, selectInBatches } from '../../db/batches.js';
import type { Db, Tx } from '../../db/database.js';
import { preparedQuery } from '../../db/prepared-query.js';
import type { FeedsTable, Flag } from '../../db/schema.js';
import type { FeedDoc, FeedSummary } from './feeds.schemas.js';

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
export async function countFeeds(db: Db | Tx, communityId: string): Promise<number> {
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

/** `{id, label, slug}` of feeds by id, for the `feed` of each post on a page. */
export async function selectFeedSummaries(db: Db | Tx, communityId: string, ids: readonly string[]): Promise<Map<string, FeedSummary>> {
  const rows = await selectFeedRows(db, communityId, ids);
  return new Map([...rows].map(([id, row]) => [id, feedSummaryOf(row)]));
}

/** The `feed` summary of a stored feed. */
export function feedSummaryOf(row: Pick<FeedRow, 'id' | 'doc'>): FeedSummary {
  const doc = JSON.parse(row.doc) as Partial<FeedDoc>;
  return { id: row.id, label: doc.label ?? '', slug: doc.slug ?? '' };
}

/** Inserts or replaces feeds by id, in batches. */
export async function upsertFeeds(tx: Tx, communityId: string, rows: readonly FeedRow[]): Promise<void> {
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

/** Which of these ids are feeds of the community (reference checks of the calendar event import). */
export async function selectExistingFeedIds(db: Db | Tx, communityId: string, ids: readonly string[]): Promise<Set<string>> {
  const rows = await selectInBatches(ids, (batch) =>
    db.selectFrom('feeds').select('id').where('community_id', '=', communityId).where('id', 'in', batch).execute(),
  );
  return new Set(rows.map((row) => row.id));
}

/** The feed bound to each of these chat channels (the oldest when several are). */
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
