import { type Compilable, PostgresAdapter, sql } from 'kysely';
import type { Db, Tx } from '../db/database.js';
import { preparedQuery } from '../db/prepared-query.js';
import type { EventPeople } from '../modules/calendar-events/calendar-events.records.js';
import { eventPeopleByEventIdsPart, selectEventPeople } from '../modules/calendar-events/queries/children.js';
import { feedsByChannelIdsPart, selectFeedsByChannelIds as selectFeedRowsByChannelIds } from '../modules/feeds/feeds.queries.js';
import { type MentionedFeed, mentionedFeedOf } from '../modules/feeds/feeds.records.js';
import { profilesByChatUserIdsPart, selectProfilesByChatUserIds } from '../modules/profiles/profiles.queries.js';
import type { Profile } from '../modules/profiles/profiles.schemas.js';

/** What a page of records shows beside its own rows, by what names it. */
export interface RelatedKeys {
  /** Events whose hosts and speakers are wanted (none for posts). */
  eventIds: readonly string[];
  /** Mentioned chat users and channels. */
  chatUserIds: readonly string[];
  channelIds: readonly string[];
}

export interface RelatedRows {
  people: Map<string, EventPeople>;
  profilesByChatUserId: Map<string, Profile>;
  feedsByChannelId: Map<string, MentionedFeed>;
}

/**
 * The hosts, speakers, mentioned profiles and mentioned feeds of one page, for all its records at
 * once. On SQLite each is its own statement (synchronous, no round trip). On PostgreSQL, where every
 * statement is a round trip with its pool checkout and wire parsing, they are one statement
 * (docs/performance.md, "One statement for what a page refers to").
 */
export async function selectRelatedRows(db: Db | Tx, communityId: string, keys: RelatedKeys): Promise<RelatedRows> {
  const { eventIds, chatUserIds, channelIds } = keys;
  if (eventIds.length + chatUserIds.length + channelIds.length === 0) {
    return { people: new Map(), profilesByChatUserId: new Map(), feedsByChannelId: new Map() };
  }
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    const distinct = (values: readonly string[]) => [...new Set(values)];
    return relatedRowsOf(
      await relatedRowsQuery.all(db, {
        communityId,
        eventIds: distinct(eventIds),
        chatUserIds: distinct(chatUserIds),
        channelIds: distinct(channelIds),
      }),
    );
  }
  // Each of these lookups takes the distinct values of its keys itself.
  const [people, profilesByChatUserId, feedsByChannelId] = await Promise.all([
    eventIds.length ? selectEventPeople(db, communityId, eventIds) : new Map<string, EventPeople>(),
    chatUserIds.length ? selectProfilesByChatUserIds(db, communityId, chatUserIds) : new Map<string, Profile>(),
    channelIds.length ? selectFeedsByChannelIds(db, communityId, channelIds) : new Map<string, MentionedFeed>(),
  ]);
  return { people, profilesByChatUserId, feedsByChannelId };
}

/** One row of the PostgreSQL statement: `part` says which of the three lookups it answers. */
interface RelatedRow {
  part: 0 | 1 | 2;
  /** The event id (people), chat user id (profiles) or chat channel id (feeds). */
  key: string;
  role: 'host' | 'speaker' | null;
  rank: string;
  doc: string;
  /** The feed's id (feeds only). */
  id: string | null;
}

const [personPart, profilePart, feedPart] = [0, 1, 2] as const;

/**
 * PostgreSQL only: the three lookups as one statement. The keys are array parameters (`= any`), so
 * one text, one named statement, serves every page whatever its lengths (an `in` list is a text
 * per length). Ordered as the separate lookups are: people by role and position, the feeds of a
 * channel oldest first (the first one wins).
 */
const relatedRowsQuery = preparedQuery(
  (db, p: { communityId: string; eventIds: readonly string[]; chatUserIds: readonly string[]; channelIds: readonly string[] }) => {
    const query = sql<RelatedRow>`${eventPeopleByEventIdsPart(personPart, p.communityId, p.eventIds)}
    union all
    ${profilesByChatUserIdsPart(profilePart, p.communityId, p.chatUserIds)}
    union all
    ${feedsByChannelIdsPart(feedPart, p.communityId, p.channelIds)}
    order by part, key, role, rank`;
    // Compilable as the query builders are: compiled for the handle it is run on.
    return { compile: () => query.compile(db) } satisfies Compilable<RelatedRow>;
  },
  { arraysAsValues: true },
);

function relatedRowsOf(rows: readonly RelatedRow[]): RelatedRows {
  const related: RelatedRows = { people: new Map(), profilesByChatUserId: new Map(), feedsByChannelId: new Map() };
  for (const row of rows) {
    if (row.part === personPart) {
      let entry = related.people.get(row.key);
      if (!entry) {
        entry = { hosts: [], speakers: [] };
        related.people.set(row.key, entry);
      }
      (row.role === 'host' ? entry.hosts : entry.speakers).push(row.doc);
    } else if (row.part === profilePart) {
      related.profilesByChatUserId.set(row.key, JSON.parse(row.doc) as Profile);
    } else if (row.id !== null && !related.feedsByChannelId.has(row.key)) {
      related.feedsByChannelId.set(row.key, mentionedFeedOf({ id: row.id, doc: row.doc }));
    }
  }
  return related;
}

/** Feeds by chat channel id, the oldest of a channel where several share it (SQLite's lookup). */
async function selectFeedsByChannelIds(
  db: Db | Tx,
  communityId: string,
  channelIds: readonly string[],
): Promise<Map<string, MentionedFeed>> {
  const feeds = new Map<string, MentionedFeed>();
  const rows = await selectFeedRowsByChannelIds(db, communityId, channelIds);
  for (const row of rows) {
    if (!row.chat_channel_id || feeds.has(row.chat_channel_id)) continue;
    feeds.set(row.chat_channel_id, mentionedFeedOf({ id: row.id, doc: row.doc }));
  }
  return feeds;
}
