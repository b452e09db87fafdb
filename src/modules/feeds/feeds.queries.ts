import type { Db, Tx } from '../../db/database.js';
import { preparedQuery } from '../../db/prepared-query.js';
import type { Flag } from '../../db/schema.js';
import type { FeedDoc, FeedSummary } from './feeds.schemas.js';

/** A feed row as stored. */
export interface FeedRow {
  id: string;
  chat_channel_id: string | null;
  is_archived: Flag;
  is_unlisted: Flag;
  doc: string;
  created_at: number;
  updated_at: number;
}

const batchSize = 500;
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

/** Stored feeds by id (unknown ids are absent), in batches. */
export async function selectFeedRows(db: Db | Tx, communityId: string, ids: readonly string[]): Promise<Map<string, FeedRow>> {
  const found = new Map<string, FeedRow>();
  const unique = [...new Set(ids)];
  for (let i = 0; i < unique.length; i += batchSize) {
    const rows = await db
      .selectFrom('feeds')
      .select(feedColumns)
      .where('community_id', '=', communityId)
      .where('id', 'in', unique.slice(i, i + batchSize))
      .execute();
    for (const row of rows) found.set(row.id, row);
  }
  return found;
}

/** `{id, label, slug}` of feeds by id, for the `feed` of each post on a page. */
export async function selectFeedSummaries(db: Db | Tx, communityId: string, ids: readonly string[]): Promise<Map<string, FeedSummary>> {
  const rows = await selectFeedRows(db, communityId, ids);
  return new Map([...rows].map(([id, row]) => [id, feedSummaryOf(row)]));
}

/** The `feed` summary of a stored feed. */
export function feedSummaryOf(row: FeedRow): FeedSummary {
  const doc = JSON.parse(row.doc) as Partial<FeedDoc>;
  return { id: row.id, label: doc.label ?? '', slug: doc.slug ?? '' };
}

/** Inserts or replaces feeds by id, in batches. */
export async function upsertFeeds(db: Db | Tx, communityId: string, rows: readonly FeedRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += batchSize) {
    await db
      .insertInto('feeds')
      .values(rows.slice(i, i + batchSize).map((row) => ({ community_id: communityId, ...row })))
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
