import { createHash } from 'node:crypto';
import { type CachedReadDeps, cachedRead } from '../../caching/cached-read.js';
import { readDataVersion } from '../../caching/data-version.js';
import type { Database } from '../../db/database.js';
import { andThen } from '../../shared/maybe-async.js';
import type { EpochMicros } from '../../shared/time.js';
import { selectCalendarFeedEvents } from '../calendar-events/queries/feed.js';
import { selectCommunity } from '../communities/communities.queries.js';
import { selectMemberById } from '../members/members.queries.js';
import { settleCalendarFeed } from './calendar-feeds.commands.js';
import { type CalendarFeedRow, selectCalendarFeeds, selectFeedEntries, selectLiveFeedByTokenHash } from './calendar-feeds.queries.js';
import { type CalendarFeedRecord, calendarFeedRecord, feedEventOf, lastRendered, renderFeedIcs } from './calendar-feeds.records.js';
import { settledNothing, settleFeed, tokenHash, tokenPattern } from './calendar-feeds.rules.js';

const dayMicros = 86_400_000_000;

/** The community's feeds (never their tokens: a shared feed's URL is shown once, a member's by its own POST). */
export async function listCalendarFeeds(
  deps: { database: Database },
  communityId: string,
  includeRevoked = false,
): Promise<CalendarFeedRecord[]> {
  const rows = await selectCalendarFeeds(deps.database.db, communityId, includeRevoked);
  return rows.map((row) => calendarFeedRecord(row, null));
}

/** Feeds looked up since the last commit anywhere, per database (SQLite in WAL mode only): token hash to row. */
const lookups = new WeakMap<Database, { epoch: number; feeds: Map<string, CalendarFeedRow | undefined> }>();
const maxRemembered = 10_000;

/**
 * The live feed a token names, or undefined (unknown, malformed and revoked alike). On SQLite,
 * outside a transaction, a lookup is reused until anything commits (src/db/sqlite-commit-watch.ts, as
 * readDataVersion does): a revocation is a commit, so it is seen by the next request; the epoch is
 * taken before the read, so a commit landing during it is not missed. Synchronous on SQLite.
 */
export function findLiveFeed(database: Database, token: string): CalendarFeedRow | undefined | Promise<CalendarFeedRow | undefined> {
  if (!tokenPattern.test(token)) return undefined;
  const hash = tokenHash(token);
  const watch = database.sqlite?.inTransaction === false ? database.commitWatch() : null;
  if (!watch) return selectLiveFeedByTokenHash(database.db, hash);
  const epoch = watch.epochNow();
  let memo = lookups.get(database);
  if (!memo || memo.epoch !== epoch || memo.feeds.size >= maxRemembered) {
    memo = { epoch, feeds: new Map() };
    lookups.set(database, memo);
  }
  const feeds = memo.feeds;
  if (feeds.has(hash)) return feeds.get(hash);
  return andThen(selectLiveFeedByTokenHash(database.db, hash), (row) => {
    feeds.set(hash, row);
    return row;
  });
}

/** How feeds are rendered on this server. */
export interface FeedOptions {
  /** CALENDAR_FEED_PAST_DAYS. */
  pastDays: number;
  /** The host of UIDs (PUBLIC_BASE_URL's). */
  uidHost: string;
}

/**
 * A rendered feed as the response cache keeps it: two head lines (the ETag, the Last-Modified date)
 * then the iCalendar text. The route sends the text and the head lines as headers, so one cache
 * entry holds all three and a hit costs no rendering of either.
 */
export function splitFeedAnswer(body: Buffer | string): { etag: string; lastModified: string; ics: Buffer | string } {
  // A number needle: a string one is encoded again on every call.
  const first = typeof body === 'string' ? body.indexOf('\n') : body.indexOf(10);
  const second = typeof body === 'string' ? body.indexOf('\n', first + 1) : body.indexOf(10, first + 1);
  const head = (from: number, to: number) => (typeof body === 'string' ? body.slice(from, to) : body.toString('latin1', from, to));
  return {
    etag: head(0, first),
    lastModified: head(first + 1, second),
    ics: typeof body === 'string' ? body.slice(second + 1) : body.subarray(second + 1),
  };
}

/**
 * A feed's iCalendar text, rendered once per data version of the community's events (and again
 * when an event or a cancellation leaves the window), from the response cache otherwise.
 */
export const readCalendarFeed = cachedRead({
  name: 'calendar.feed',
  view: 'events',
  key: (_now, feed: CalendarFeedRow, options: FeedOptions) => `${feed.id} ${options.pastDays} ${options.uidHost}`,
  render: async (deps: CachedReadDeps, communityId: string, now: EpochMicros, feed: CalendarFeedRow, options: FeedOptions) => {
    const { db } = deps.database;
    // Read first: a write landing during the render leaves a newer version behind (as the cache's own read).
    const version = await readDataVersion(deps.database, communityId, 'events_version');
    const pastMicros = options.pastDays * dayMicros;
    const endsFrom = (now - pastMicros) as EpochMicros;
    let attendeeProfileId: string | null | undefined;
    if (feed.member_id !== null) attendeeProfileId = (await selectMemberById(db, communityId, feed.member_id))?.chat_profile_id ?? null;
    const rows = await selectCalendarFeedEvents(db, communityId, {
      endsFrom,
      tagId: feed.tag_id,
      includeUnlisted: Number(feed.include_unlisted) === 1,
      attendeeProfileId,
    });
    const previous = lastRendered(feed.id);
    const events = rows.map((row) => feedEventOf(row, previous.get(row.id)));
    let settled = settleFeed(events, await selectFeedEntries(db, communityId, feed.id), now, endsFrom, pastMicros);
    if (!settledNothing(settled))
      settled = await settleCalendarFeed({ ...deps, communityId }, { feedId: feed.id, events, now, endsFrom, pastMicros });
    const community = await selectCommunity(db, communityId);
    const name = feed.label ? `${community?.name ?? ''}: ${feed.label}` : (community?.name ?? '');
    const ics = renderFeedIcs(
      feed.id,
      { name, uidHost: options.uidHost },
      settled,
      new Map(events.map((event) => [event.row.id, event.doc])),
    );
    let lastModified = Number(feed.created_at);
    for (const { event, entry } of settled.live)
      lastModified = Math.max(lastModified, Number(event.row.updated_at), Number(entry.changed_at));
    for (const entry of settled.cancelled) lastModified = Math.max(lastModified, Number(entry.changed_at));
    const hash = createHash('sha256').update(ics).digest('base64url').slice(0, 16);
    const etag = `"${version}-${hash}"`;
    const httpDate = new Date(Math.floor(lastModified / 1000)).toUTCString();
    return { body: `${etag}\n${httpDate}\n${ics}`, validUntil: settled.validUntil };
  },
});
