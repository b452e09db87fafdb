import type { Db, Tx } from '../../../db/database.js';
import type { EpochMicros } from '../../../shared/time.js';

/* The events a calendar subscription shows (src/modules/calendar-feeds/, docs/calendar-feeds.md). */

/** Which of a community's events a calendar feed shows. */
export interface CalendarFeedFilter {
  /** Events ending at or after this instant (CALENDAR_FEED_PAST_DAYS before now). */
  endsFrom: EpochMicros;
  /** Only events carrying this tag. */
  tagId: string | null;
  includeUnlisted: boolean;
  /** A member's own feed: only events this profile attends (null: the member has no profile, so none). */
  attendeeProfileId?: string | null;
}

/** An event as a feed renders it. */
export interface CalendarFeedEventRow {
  id: string;
  start_at: EpochMicros;
  end_at: EpochMicros | null;
  ends_at: EpochMicros;
  doc: string;
  created_at: EpochMicros;
  updated_at: EpochMicros;
}

/** The published events on the site that the feed shows, in start order. */
export async function selectCalendarFeedEvents(
  db: Db | Tx,
  communityId: string,
  filter: CalendarFeedFilter,
): Promise<CalendarFeedEventRow[]> {
  if (filter.attendeeProfileId === null) return [];
  let query = db
    .selectFrom('calendar_events as e')
    .select(['e.id', 'e.start_at', 'e.end_at', 'e.ends_at', 'e.doc', 'e.created_at', 'e.updated_at'])
    .where('e.community_id', '=', communityId)
    .where('e.status', '=', 'published')
    .where('e.publish_to_site', '=', 1)
    .where('e.ends_at', '>=', filter.endsFrom);
  if (!filter.includeUnlisted) query = query.where('e.is_unlisted', '=', 0);
  const { tagId, attendeeProfileId } = filter;
  if (tagId !== null)
    query = query.where(({ exists, selectFrom }) =>
      exists(
        selectFrom('calendar_event_tags as t')
          .select('t.tag_id')
          .where('t.community_id', '=', communityId)
          .whereRef('t.event_id', '=', 'e.id')
          .where('t.tag_id', '=', tagId),
      ),
    );
  if (attendeeProfileId !== undefined)
    query = query.where(({ exists, selectFrom }) =>
      exists(
        selectFrom('calendar_event_attendees as a')
          .select('a.profile_id')
          .where('a.community_id', '=', communityId)
          .whereRef('a.event_id', '=', 'e.id')
          .where('a.profile_id', '=', attendeeProfileId),
      ),
    );
  return query.orderBy('e.start_at').orderBy('e.id').execute();
}

/** The id of the tag whose id or label is `idOrLabel` among the community's events' tags (the id first), or undefined. */
export async function selectTagIdByIdOrLabel(db: Db | Tx, communityId: string, idOrLabel: string): Promise<string | undefined> {
  const byId = await db
    .selectFrom('calendar_event_tags')
    .select('tag_id')
    .where('community_id', '=', communityId)
    .where('tag_id', '=', idOrLabel)
    .limit(1)
    .executeTakeFirst();
  if (byId) return byId.tag_id;
  // Labels live in the events' JSON: read the tags of the community's events once (an operator's command, not a hot path).
  const rows = await db.selectFrom('calendar_events').select('doc').where('community_id', '=', communityId).execute();
  for (const row of rows) {
    const tags = (JSON.parse(row.doc) as { tags?: { id: string; label: string }[] }).tags ?? [];
    const found = tags.find((tag) => tag.label === idOrLabel);
    if (found) return found.id;
  }
  return undefined;
}
