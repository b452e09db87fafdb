import ical, { ICalAlarmType, type ICalCalendar, ICalEvent, ICalEventStatus } from 'ical-generator';
import { renderPlaintext } from '../../rich-text/index.js';
import type { EpochMicros } from '../../shared/time.js';
import type { CalendarEventDoc } from '../calendar-events/calendar-events.records.js';
import type { CalendarFeedEventRow } from '../calendar-events/queries/feed.js';
import type { CalendarFeedRow, FeedEntryRow } from './calendar-feeds.queries.js';
import { type FeedEvent, foldLines, type SettledFeed } from './calendar-feeds.rules.js';

/* A feed rendered as iCalendar (RFC 5545) text, and feeds as the API and the CLI show them. */

/** How often subscribed apps are asked to fetch the feed again (REFRESH-INTERVAL, X-PUBLISHED-TTL). */
const refreshSeconds = 3600;

/** The stored doc fields a feed shows. */
type FeedDoc = Pick<CalendarEventDoc, 'title' | 'description_chat_blocks' | 'location' | 'link' | 'tags' | 'reminders_config'>;

/** An event row with the fields of its doc that a feed shows (the parse of the last render reused while the doc is the same text). */
export function feedEventOf(row: CalendarFeedEventRow, previous?: RenderedEvent): FeedEvent & { doc: FeedDoc } {
  const doc = previous && previous.doc === row.doc ? previous.parsed : (JSON.parse(row.doc) as FeedDoc);
  return { row, doc, title: doc.title ?? '', location: doc.location ?? '', link: doc.link ?? null };
}

/**
 * An event's text as a feed's last render made it: reused by the next render of that feed while
 * everything the text is made of is the same (the stored doc, by its text, and `key`: dates, stamps,
 * SEQUENCE, the UID host). So a change of one event re-renders one VEVENT, not the whole feed.
 */
export interface RenderedEvent {
  doc: string;
  parsed: FeedDoc;
  key: string;
  /** Folded VEVENT text, CRLF after every line. */
  text: string;
}

/** The events of the feeds rendered last, per feed id, least recently rendered first (a few MB at most). */
const renderedFeeds = new Map<string, Map<string, RenderedEvent>>();
let renderedCount = 0;
const maxRenderedEvents = 5000;

/** The events of a feed's last render (empty when it was not kept). */
export function lastRendered(feedId: string): ReadonlyMap<string, RenderedEvent> {
  return renderedFeeds.get(feedId) ?? new Map();
}

function keepRendered(feedId: string, events: Map<string, RenderedEvent>): void {
  const previous = renderedFeeds.get(feedId);
  if (previous) {
    renderedFeeds.delete(feedId);
    renderedCount -= previous.size;
  }
  if (events.size > maxRenderedEvents / 4) return;
  renderedFeeds.set(feedId, events);
  renderedCount += events.size;
  for (const [oldest, kept] of renderedFeeds) {
    if (renderedCount <= maxRenderedEvents) break;
    renderedFeeds.delete(oldest);
    renderedCount -= kept.size;
  }
}

const dateOf = (us: EpochMicros | number): Date => new Date(Math.floor(Number(us) / 1000));

/** What a rendered feed says besides its events. */
export interface FeedHeading {
  /** The calendar's name (NAME, X-WR-CALNAME). */
  name: string;
  /** The host of UIDs (`<event id>@<host>`): the server's public host, so UIDs never change. */
  uidHost: string;
}

/**
 * The iCalendar text of a settled feed: one VEVENT per live event (CONFIRMED) and per cancellation
 * (CANCELLED), UTC date-times, no ORGANIZER or ATTENDEE (no personal data), CRLF after every line,
 * folded at 75 octets. Events are rendered by ical-generator (escaping, formats) unfolded and folded
 * once here (foldLines); the calendar's own lines come from ical-generator as well.
 */
export function renderFeedIcs(feedId: string, heading: FeedHeading, settled: SettledFeed, docs: ReadonlyMap<string, FeedDoc>): string {
  const previous = lastRendered(feedId);
  const rendered = new Map<string, RenderedEvent>();
  const calendar = ical({
    name: heading.name,
    prodId: { company: 'community-admin', product: 'calendar-feeds', language: 'EN' },
    ttl: refreshSeconds,
  });
  const events: string[] = [];
  for (const { event, entry } of settled.live) {
    const { row } = event;
    const key = `${row.start_at} ${row.end_at} ${row.created_at} ${row.updated_at} ${entry.sequence} ${entry.changed_at} ${heading.uidHost}`;
    const before = previous.get(row.id);
    if (before && before.doc === row.doc && before.key === key) {
      rendered.set(row.id, before);
      events.push(before.text);
      continue;
    }
    const doc = docs.get(event.row.id);
    const stamp = dateOf(Math.max(Number(event.row.updated_at), Number(entry.changed_at)));
    // Not added to the calendar (createEvent would): the calendar's toString folds 70x slower than foldLines.
    const vevent = new ICalEvent(
      {
        id: `${event.row.id}@${heading.uidHost}`,
        sequence: entry.sequence,
        stamp,
        lastModified: stamp,
        created: dateOf(event.row.created_at),
        start: dateOf(event.row.start_at),
        ...(event.row.end_at === null ? {} : { end: dateOf(event.row.end_at) }),
        summary: event.title,
        description: doc?.description_chat_blocks ? renderPlaintext(doc.description_chat_blocks) || null : null,
        location: event.location || null,
        url: event.link,
        status: ICalEventStatus.CONFIRMED,
        categories: (doc?.tags ?? []).map((tag) => ({ name: tag.label })),
        alarms: (doc?.reminders_config ?? []).map((reminder) => ({
          type: ICalAlarmType.display,
          trigger: reminder.minutes * 60,
          description: event.title,
        })),
      },
      calendar,
    );
    const text = foldLines(vevent.toString());
    if (doc) rendered.set(row.id, { doc: row.doc, parsed: doc, key, text });
    events.push(text);
  }
  keepRendered(feedId, rendered);
  for (const entry of settled.cancelled) events.push(foldLines(cancelledEvent(calendar, heading, entry)));
  // The calendar without events ends with END:VCALENDAR and no line break (ical-generator's form).
  const frame = calendar.toString();
  const end = 'END:VCALENDAR';
  return `${frame.slice(0, frame.length - end.length)}${events.join('')}${end}\r\n`;
}

function cancelledEvent(calendar: ICalCalendar, heading: FeedHeading, entry: FeedEntryRow): string {
  const stamp = dateOf(entry.changed_at);
  const vevent = new ICalEvent(
    {
      id: `${entry.event_id}@${heading.uidHost}`,
      sequence: entry.sequence,
      stamp,
      lastModified: stamp,
      created: dateOf(entry.created_at),
      start: dateOf(entry.start_at),
      ...(entry.end_at === null ? {} : { end: dateOf(entry.end_at) }),
      summary: entry.title,
      status: ICalEventStatus.CANCELLED,
    },
    calendar,
  );
  return vevent.toString();
}

/** A feed as the API and `calendar-feed list --json` show it. */
export interface CalendarFeedRecord {
  id: string;
  label: string;
  member_id: string | null;
  tag_id: string | null;
  include_unlisted: boolean;
  created_at: string;
  revoked_at: string | null;
  /** The feed's address (`https://` or `http://`); only when it can be shown (at creation, a member's feed). */
  url: string | null;
  /** The same address for calendar apps (`webcal://`). */
  webcal_url: string | null;
}

/** The feed's URLs from the public base and its token. */
export function feedUrls(publicBaseUrl: string, token: string): { url: string; webcal_url: string } {
  const url = `${publicBaseUrl}/calendar/${token}.ics`;
  return { url, webcal_url: url.replace(/^https?:/, 'webcal:') };
}

export function calendarFeedRecord(row: CalendarFeedRow, urls: { url: string; webcal_url: string } | null): CalendarFeedRecord {
  const iso = (us: EpochMicros | null) => (us === null ? null : dateOf(us).toISOString());
  return {
    id: row.id,
    label: row.label,
    member_id: row.member_id,
    tag_id: row.tag_id,
    include_unlisted: Number(row.include_unlisted) === 1,
    created_at: iso(Number(row.created_at) as EpochMicros) as string,
    revoked_at: iso(row.revoked_at === null ? null : (Number(row.revoked_at) as EpochMicros)),
    url: urls?.url ?? null,
    webcal_url: urls?.webcal_url ?? null,
  };
}
