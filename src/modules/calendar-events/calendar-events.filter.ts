import { type SelectQueryBuilder, sql } from 'kysely';
import type { DB, Flag } from '../../db/schema.js';
import { type EpochMicros, epochMicros } from '../../shared/time.js';
import type { EventStatus, TimeFilter } from './calendar-events.schemas.js';

/** What a list of calendar events is narrowed by (the parsed query of GET /calendar_events). */
export interface CalendarEventFilter {
  status: EventStatus;
  timeFilter: TimeFilter;
  /** Epoch µs splitting upcoming from past. */
  referenceAt: EpochMicros;
  /** The UTC calendar day [start, end) that events must overlap (date_filter). */
  day?: { start: EpochMicros; end: EpochMicros };
  /** 1 or 0 (the stored flag): values only, so that a compiled query can take them as parameters. */
  publishToSite?: Flag;
  isUnlisted?: Flag;
  feedId?: string;
  /** Non-empty when given: an event matches when it has any of them. */
  tagIds?: string[];
}

type EventQuery<O> = SelectQueryBuilder<DB, 'calendar_events', O>;

/** A day in the unit of stored instants (epoch µs). */
const dayMicros = 24 * 60 * 60 * 1_000_000;

/** The UTC calendar day containing an instant. */
export function utcDayOf(instant: EpochMicros): { start: EpochMicros; end: EpochMicros } {
  const start = epochMicros(Math.floor(instant / dayMicros) * dayMicros);
  return { start, end: epochMicros(start + dayMicros) };
}

/**
 * The earliest start an event can have and still end at or after `instant`: `instant` minus the
 * longest event of that community and status (one step of calendar_events_duration). The lists
 * add `start_at >= lowerStartBound(...)`, which removes no row (ends_at <= start_at + longest) but
 * turns "ends after" into a range of the start index, so pages are read in order without a sort
 * and without walking the past. It is a subquery, so it sees the same snapshot as the list.
 */
function lowerStartBound(communityId: string, status: EventStatus, instant: EpochMicros) {
  return sql<EpochMicros>`${instant} - (select coalesce(max(ends_at - start_at), 0) from calendar_events where community_id = ${communityId} and status = ${status})`;
}

/**
 * Adds the filter's conditions to a query over calendar_events. `forOrderedScan` adds the
 * redundant start bounds that let the page query walk the start index (the count does without:
 * its best index is calendar_events_ends, which covers the time condition by itself).
 */
export function applyEventFilter<O>(
  query: EventQuery<O>,
  communityId: string,
  filter: CalendarEventFilter,
  forOrderedScan: boolean,
): EventQuery<O> {
  let q = query.where('calendar_events.community_id', '=', communityId).where('calendar_events.status', '=', filter.status);
  const { referenceAt, status } = filter;
  if (filter.timeFilter === 'upcoming') {
    q = q.where('calendar_events.ends_at', '>=', referenceAt);
    if (forOrderedScan) q = q.where('calendar_events.start_at', '>=', lowerStartBound(communityId, status, referenceAt));
  } else if (filter.timeFilter === 'past') {
    q = q.where('calendar_events.ends_at', '<', referenceAt);
    // Implied by ends_at < T (an event never ends before it starts); stated for the index.
    if (forOrderedScan) q = q.where('calendar_events.start_at', '<', referenceAt);
  }
  if (filter.day) {
    const { start, end } = filter.day;
    // Overlap with [start, end): begins that day, or began before and ends after midnight
    // (an event that ends exactly at midnight belongs to the day before only).
    q = q
      .where('calendar_events.start_at', '<', end)
      .where((eb) => eb.or([eb('calendar_events.start_at', '>=', start), eb('calendar_events.ends_at', '>', start)]))
      .where('calendar_events.start_at', '>=', lowerStartBound(communityId, status, start));
  }
  if (filter.publishToSite !== undefined) q = q.where('calendar_events.publish_to_site', '=', filter.publishToSite);
  if (filter.isUnlisted !== undefined) q = q.where('calendar_events.is_unlisted', '=', filter.isUnlisted);
  if (filter.feedId !== undefined) {
    const feedId = filter.feedId;
    q = q.where('calendar_events.id', 'in', (eb) =>
      eb
        .selectFrom('calendar_event_feeds')
        .select('calendar_event_feeds.event_id')
        .where('calendar_event_feeds.community_id', '=', communityId)
        .where('calendar_event_feeds.feed_id', '=', feedId),
    );
  }
  if (filter.tagIds !== undefined && filter.tagIds.length > 0) {
    const tagIds = filter.tagIds;
    q = q.where('calendar_events.id', 'in', (eb) =>
      eb
        .selectFrom('calendar_event_tags')
        .select('calendar_event_tags.event_id')
        .where('calendar_event_tags.community_id', '=', communityId)
        .where('calendar_event_tags.tag_id', 'in', tagIds),
    );
  }
  return q;
}

/** Sorts by start (descending for past events), ties broken by id in the same direction. */
export function orderEvents<O>(query: EventQuery<O>, timeFilter: TimeFilter): EventQuery<O> {
  const direction = timeFilter === 'past' ? 'desc' : 'asc';
  return query.orderBy('calendar_events.start_at', direction).orderBy('calendar_events.id', direction);
}
