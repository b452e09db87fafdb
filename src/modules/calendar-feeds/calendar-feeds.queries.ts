import type { Insertable, Selectable } from 'kysely';
import { batchesOf } from '../../db/batches.js';
import type { Db, Tx } from '../../db/database.js';
import { preparedQuery } from '../../db/prepared-query.js';
import type { CalendarFeedEntriesTable, CalendarFeedsTable } from '../../db/schema.js';
import type { EpochMicros } from '../../shared/time.js';

/* Every statement on calendar_feeds and calendar_feed_entries (docs/calendar-feeds.md). */

export type CalendarFeedRow = Selectable<CalendarFeedsTable>;
export type FeedEntryRow = Omit<Selectable<CalendarFeedEntriesTable>, 'community_id' | 'feed_id'>;

// Every request of a feed looks its token up: compiled once (run synchronously on SQLite).
const feedByTokenHash = preparedQuery((db, p: { tokenHash: string }) =>
  db.selectFrom('calendar_feeds').selectAll().where('token_hash', '=', p.tokenHash).where('revoked_at', 'is', null),
);

/** The live (not revoked) feed whose token hashes to `tokenHash`, or undefined. */
export function selectLiveFeedByTokenHash(db: Db, tokenHash: string): CalendarFeedRow | undefined | Promise<CalendarFeedRow | undefined> {
  return feedByTokenHash.firstNow(db, { tokenHash });
}

export async function insertCalendarFeed(tx: Tx, row: Insertable<CalendarFeedsTable>): Promise<void> {
  await tx.insertInto('calendar_feeds').values(row).execute();
}

/** The community's feeds, live first then revoked, each newest first. */
export async function selectCalendarFeeds(db: Db | Tx, communityId: string, includeRevoked: boolean): Promise<CalendarFeedRow[]> {
  let query = db.selectFrom('calendar_feeds').selectAll().where('community_id', '=', communityId);
  if (!includeRevoked) query = query.where('revoked_at', 'is', null);
  return query.orderBy('created_at', 'desc').orderBy('id').execute();
}

/** One feed by id, in any community (the CLI's revoke names a feed by id alone). */
export async function selectCalendarFeedById(db: Db | Tx, id: string): Promise<CalendarFeedRow | undefined> {
  return db.selectFrom('calendar_feeds').selectAll().where('id', '=', id).executeTakeFirst();
}

/** A member's live own feed, or undefined. */
export async function selectLiveMemberFeed(db: Db | Tx, communityId: string, memberId: string): Promise<CalendarFeedRow | undefined> {
  return db
    .selectFrom('calendar_feeds')
    .selectAll()
    .where('community_id', '=', communityId)
    .where('member_id', '=', memberId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
}

/** Revokes a live feed; false when it is not live (unknown or already revoked). */
export async function revokeCalendarFeedRow(tx: Tx, communityId: string, id: string, now: EpochMicros): Promise<boolean> {
  const result = await tx
    .updateTable('calendar_feeds')
    .set({ revoked_at: now, token_sealed: null })
    .where('community_id', '=', communityId)
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) return false;
  // What the feed showed is of no use once nobody can read it.
  await tx.deleteFrom('calendar_feed_entries').where('community_id', '=', communityId).where('feed_id', '=', id).execute();
  return true;
}

/** Serialises the settling of one feed's entries between concurrent renders (any instance). */
export async function lockCalendarFeed(tx: Tx, communityId: string, id: string): Promise<void> {
  // A no-op update is the row's lock on both engines (as src/db/lock-row.ts does for its tables).
  await tx
    .updateTable('calendar_feeds')
    .set((eb) => ({ id: eb.ref('id') }))
    .where('community_id', '=', communityId)
    .where('id', '=', id)
    .execute();
}

const entryColumns = [
  'event_id',
  'sequence',
  'fingerprint',
  'title',
  'start_at',
  'end_at',
  'ends_at',
  'created_at',
  'changed_at',
  'removed_at',
] as const;

/** What the feed last showed of each event. */
export async function selectFeedEntries(db: Db | Tx, communityId: string, feedId: string): Promise<FeedEntryRow[]> {
  const rows = await db
    .selectFrom('calendar_feed_entries')
    .select(entryColumns)
    .where('community_id', '=', communityId)
    .where('feed_id', '=', feedId)
    .execute();
  // bigint columns come back as strings from PostgreSQL.
  return rows.map((row) => ({
    ...row,
    sequence: Number(row.sequence),
    start_at: Number(row.start_at) as EpochMicros,
    end_at: row.end_at === null ? null : (Number(row.end_at) as EpochMicros),
    ends_at: Number(row.ends_at) as EpochMicros,
    created_at: Number(row.created_at) as EpochMicros,
    changed_at: Number(row.changed_at) as EpochMicros,
    removed_at: row.removed_at === null ? null : (Number(row.removed_at) as EpochMicros),
  }));
}

/** Writes entries (new or changed) of a feed. */
export async function upsertFeedEntries(tx: Tx, communityId: string, feedId: string, entries: readonly FeedEntryRow[]): Promise<void> {
  for (const batch of batchesOf(entries, 200)) {
    const rows = batch.map((entry) => ({ community_id: communityId, feed_id: feedId, ...entry }));
    await tx
      .insertInto('calendar_feed_entries')
      .values(rows)
      .onConflict((oc) =>
        oc.columns(['community_id', 'feed_id', 'event_id']).doUpdateSet((eb) => ({
          sequence: eb.ref('excluded.sequence'),
          fingerprint: eb.ref('excluded.fingerprint'),
          title: eb.ref('excluded.title'),
          start_at: eb.ref('excluded.start_at'),
          end_at: eb.ref('excluded.end_at'),
          ends_at: eb.ref('excluded.ends_at'),
          created_at: eb.ref('excluded.created_at'),
          changed_at: eb.ref('excluded.changed_at'),
          removed_at: eb.ref('excluded.removed_at'),
        })),
      )
      .execute();
  }
}

/** Forgets entries of a feed (events past the window, cancellations shown long enough). */
export async function deleteFeedEntries(tx: Tx, communityId: string, feedId: string, eventIds: readonly string[]): Promise<void> {
  for (const batch of batchesOf(eventIds)) {
    await tx
      .deleteFrom('calendar_feed_entries')
      .where('community_id', '=', communityId)
      .where('feed_id', '=', feedId)
      .where('event_id', 'in', batch)
      .execute();
  }
}
