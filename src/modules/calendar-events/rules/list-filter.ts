import type { Flag } from '../../../db/schema.js';
import { refuse } from '../../../shared/failures.js';
import { type EpochMicros, epochMicros } from '../../../shared/time.js';
import { parseTimestamp } from '../../../shared/timestamps.js';
import type { CalendarEventFilter } from '../queries/list.js';
import { type ListQuery, maxTagIdsInFilter } from '../schemas/event.js';

// The filter is the input of the list's statements (../queries/list.ts), declared there; parsed here.
export type { CalendarEventFilter };

/** A day in the unit of stored instants (epoch µs). */
const dayMicros = 24 * 60 * 60 * 1_000_000;

/** The UTC calendar day containing an instant. */
function utcDayOf(instant: EpochMicros): { start: EpochMicros; end: EpochMicros } {
  const start = epochMicros(Math.floor(instant / dayMicros) * dayMicros);
  return { start, end: epochMicros(start + dayMicros) };
}

/** Epoch µs of a format-checked date-time query value; refused at `field` when it names no instant (e.g. a leap second). */
function queryInstant(field: string, value: string): EpochMicros {
  const us = parseTimestamp(value);
  if (us === undefined) throw refuse([field], 'timestamp', 'must be a valid ISO 8601 date-time');
  return us;
}

/** The ids of a `tag_ids` value: comma-separated, trimmed, none empty, deduplicated. */
function parseTagIds(value: string): string[] {
  const ids = value.split(',').map((id) => id.trim());
  if (ids.some((id) => id === '')) throw refuse(['tag_ids'], 'format', 'must be comma-separated tag ids, none empty');
  const unique = [...new Set(ids)];
  if (unique.length > maxTagIdsInFilter) throw refuse(['tag_ids'], 'too_many', `must list at most ${maxTagIdsInFilter} tag ids`);
  return unique;
}

/** The list filter of a validated query; reference_date defaults to `now`. */
export function filterFromQuery(query: ListQuery, now: EpochMicros): CalendarEventFilter {
  const flag = (value: 'true' | 'false' | undefined): Flag | undefined => (value === undefined ? undefined : value === 'true' ? 1 : 0);
  return {
    status: query.status ?? 'published',
    timeFilter: query.time_filter ?? 'all',
    referenceAt: query.reference_date === undefined ? now : queryInstant('reference_date', query.reference_date),
    ...(query.date_filter === undefined ? {} : { day: utcDayOf(queryInstant('date_filter', query.date_filter)) }),
    publishToSite: flag(query.published_to_site),
    isUnlisted: flag(query.is_unlisted),
    ...(query.feed_id === undefined ? {} : { feedId: query.feed_id.toLowerCase() }),
    ...(query.tag_ids === undefined ? {} : { tagIds: parseTagIds(query.tag_ids) }),
  };
}
