import type { Flag } from '../../../db/schema.js';
import type { EventStatus, TimeFilter } from '../schemas/event.js';

/** What a list of calendar events is narrowed by (the parsed query of GET /calendar_events). */
export interface CalendarEventFilter {
  status: EventStatus;
  timeFilter: TimeFilter;
  /** Epoch µs splitting upcoming from past. */
  referenceAt: number;
  /** The UTC calendar day [start, end) that events must overlap (date_filter). */
  day?: { start: number; end: number };
  /** 1 or 0 (the stored flag): values only, so that a compiled query can take them as parameters. */
  publishToSite?: Flag;
  isUnlisted?: Flag;
  feedId?: string;
  /** Non-empty when given: an event matches when it has any of them. */
  tagIds?: string[];
}

/** A day in the unit of stored instants (epoch µs). */
const dayMicros = 24 * 60 * 60 * 1_000_000;

/** The UTC calendar day containing an instant. */
export function utcDayOf(instant: number): { start: number; end: number } {
  const start = Math.floor(instant / dayMicros) * dayMicros;
  return { start, end: start + dayMicros };
}
