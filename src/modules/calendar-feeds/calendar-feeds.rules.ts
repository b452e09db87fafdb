import { createHash } from 'node:crypto';
import type { EpochMicros } from '../../shared/time.js';
import type { CalendarFeedEventRow } from '../calendar-events/queries/feed.js';
import type { FeedEntryRow } from './calendar-feeds.queries.js';

/* Pure rules of calendar feeds: tokens, SEQUENCE bookkeeping, line folding (docs/calendar-feeds.md). */

/** How a token is kept: hex SHA-256 (a 256-bit random token needs no slow hash). */
export const tokenHash = (token: string): string => createHash('sha256').update(token).digest('hex');

/** A feed token as it appears in a URL: 43 characters of base64url (32 random bytes). */
export const tokenPattern = /^[A-Za-z0-9_-]{43}$/;

/** The fields of an event a feed shows, read from its row. */
export interface FeedEvent {
  row: CalendarFeedEventRow;
  title: string;
  location: string;
  link: string | null;
}

/**
 * The fields whose change raises SEQUENCE (RFC 5545 3.8.7.4: a change that the attendee must see):
 * start, end, location, link and title; status is the entry's own (live or removed).
 */
function eventFingerprint(event: FeedEvent): string {
  const { row } = event;
  return createHash('sha1')
    .update(
      JSON.stringify([Number(row.start_at), row.end_at === null ? null : Number(row.end_at), event.location, event.link, event.title]),
    )
    .digest('base64url');
}

/** The outcome of comparing what a feed shows now with what it showed last. */
export interface SettledFeed {
  /** Every event shown live, with its entry (SEQUENCE, when it last changed). */
  live: { event: FeedEvent; entry: FeedEntryRow }[];
  /** Events that left the feed and are shown CANCELLED. */
  cancelled: FeedEntryRow[];
  /** Entries to write (new, raised, removed) and to forget. */
  upserts: FeedEntryRow[];
  deletes: string[];
  /** Last instant at which this outcome holds while the data does not change (an event or a cancellation leaving the window). */
  validUntil: EpochMicros;
}

/**
 * Settles a feed's entries against its events now. An event new to the feed gets SEQUENCE 0; one
 * whose fingerprint changed, or that comes back after leaving, gets its SEQUENCE raised; one that
 * left the feed (deleted, no longer published or on the site, filtered out) while still inside the
 * window is kept as a cancellation, SEQUENCE raised, for `pastMicros`; one that merely ended before
 * the window is forgotten silently (subscribers keep it as the past event it is).
 */
export function settleFeed(
  events: readonly FeedEvent[],
  entries: readonly FeedEntryRow[],
  now: EpochMicros,
  endsFrom: EpochMicros,
  pastMicros: number,
): SettledFeed {
  const known = new Map(entries.map((entry) => [entry.event_id, entry]));
  const settled: SettledFeed = { live: [], cancelled: [], upserts: [], deletes: [], validUntil: Number.POSITIVE_INFINITY as EpochMicros };
  const until = (at: number) => {
    if (at < settled.validUntil) settled.validUntil = at as EpochMicros;
  };
  for (const event of events) {
    const { row } = event;
    const fingerprint = eventFingerprint(event);
    const before = known.get(row.id);
    known.delete(row.id);
    const current: FeedEntryRow = {
      event_id: row.id,
      sequence: before ? before.sequence : 0,
      fingerprint,
      title: event.title,
      start_at: Number(row.start_at) as EpochMicros,
      end_at: row.end_at === null ? null : (Number(row.end_at) as EpochMicros),
      ends_at: Number(row.ends_at) as EpochMicros,
      created_at: Number(row.created_at) as EpochMicros,
      changed_at: before ? before.changed_at : (Number(row.updated_at) as EpochMicros),
      removed_at: null,
    };
    if (before && (before.fingerprint !== fingerprint || before.removed_at !== null)) {
      current.sequence = before.sequence + 1;
      current.changed_at = now;
    }
    if (!before || current.sequence !== before.sequence) settled.upserts.push(current);
    settled.live.push({ event, entry: current });
    until(current.ends_at + pastMicros);
  }
  for (const entry of known.values()) {
    if (entry.removed_at === null) {
      if (entry.ends_at < endsFrom) {
        settled.deletes.push(entry.event_id);
        continue;
      }
      const removed: FeedEntryRow = { ...entry, sequence: entry.sequence + 1, fingerprint: 'removed', changed_at: now, removed_at: now };
      settled.upserts.push(removed);
      settled.cancelled.push(removed);
      until(Math.min(removed.ends_at, now) + pastMicros);
      continue;
    }
    if (entry.ends_at < endsFrom || entry.removed_at + pastMicros < now) {
      settled.deletes.push(entry.event_id);
      continue;
    }
    settled.cancelled.push(entry);
    until(Math.min(entry.ends_at, entry.removed_at) + pastMicros);
  }
  return settled;
}

/** True when settling changed nothing stored. */
export const settledNothing = (settled: SettledFeed): boolean => settled.upserts.length === 0 && settled.deletes.length === 0;

/** UTF-8 octets of the UTF-16 code unit at `i` of `text` (a surrogate pair's first half counts the whole pair). */
function octetsAt(text: string, i: number): number {
  const code = text.charCodeAt(i);
  if (code < 0x80) return 1;
  if (code < 0x800) return 2;
  if (code >= 0xd800 && code <= 0xdbff) return 4;
  return 3;
}

/**
 * Folds content lines (RFC 5545 3.1) at 75 octets, never inside a UTF-8 character: each line is
 * cut before the character that would pass the limit, continuation lines start with one space (which
 * counts). ical-generator folds too, but with an encoder per character: 70x slower on a feed of 1,000
 * events (docs/calendar-feeds.md), so its events are rendered unfolded and folded here.
 */
export function foldLines(text: string): string {
  const lines = text.split('\r\n');
  for (let l = 0; l < lines.length; l++) {
    const line = lines[l] as string;
    // At most 3 octets per UTF-16 code unit (a pair of them is 4): 25 units never pass 75 octets.
    if (line.length <= 25) continue;
    let start = 0;
    let octets = 0;
    let limit = 75;
    let folded = '';
    for (let i = 0; i < line.length; i++) {
      const width = octetsAt(line, i);
      if (octets + width > limit) {
        folded += `${line.slice(start, i)}\r\n `;
        start = i;
        octets = 0;
        limit = 74;
      }
      octets += width;
      if (width === 4) i++;
    }
    if (start > 0) lines[l] = folded + line.slice(start);
  }
  return lines.join('\r\n');
}
