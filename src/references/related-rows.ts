import { type Compilable, PostgresAdapter, sql } from 'kysely';
import type { Db, Tx } from '../db/database.js';
import { preparedQuery } from '../db/prepared-query.js';
import { type EventPeople, eventPeopleByEventIdsPart, selectEventPeople } from '../modules/calendar-events/queries/children.js';
import { feedsByChannelIdsPart, selectFeedsByChannelIds as selectFeedRowsByChannelIds } from '../modules/feeds/feeds.queries.js';
import type { MentionedFeed } from '../modules/feeds/feeds.records.js';
import { profilesByChatUserIdsPart, selectProfileDocsByChatUserIds } from '../modules/profiles/profiles.queries.js';
import type { Profile } from '../modules/profiles/profiles.schemas.js';
import { derivedOnce } from '../shared/derived-once.js';

/** What a page of records shows beside its own rows, by what names it. */
export interface RelatedKeys {
  /** Events whose hosts and speakers are wanted (none for posts). */
  eventIds: readonly string[];
  /** Mentioned chat users and channels. */
  chatUserIds: readonly string[];
  channelIds: readonly string[];
}

/** A profile as a user mention shows it. */
export type MentionedProfile = Readonly<Pick<Profile, 'profile_id' | 'preferred_name'>>;

export interface RelatedRows {
  people: Map<string, EventPeople>;
  profilesByChatUserId: Map<string, MentionedProfile>;
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
    chatUserIds.length ? selectMentionedProfiles(db, communityId, chatUserIds) : new Map<string, MentionedProfile>(),
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
      related.profilesByChatUserId.set(row.key, mentionedProfileOf(row.key, row.doc));
    } else if (row.id !== null && !related.feedsByChannelId.has(row.key)) {
      related.feedsByChannelId.set(row.key, mentionedFeedOf(row.id, row.doc));
    }
  }
  return related;
}

// What a mention shows of a profile or a feed, parsed once per stored text (derivedOnce): the same
// users and channels are mentioned page after page, and a stored profile is ~0.8 kB, a feed ~1.4 kB.
const mentionedProfileOf = derivedOnce((_chatUserId, doc): MentionedProfile => {
  const profile = JSON.parse(doc) as Profile;
  return Object.freeze({ profile_id: profile.profile_id, preferred_name: profile.preferred_name });
}, 1024);

const mentionedFeedOf = derivedOnce((id, doc): MentionedFeed => {
  const feed = JSON.parse(doc) as Partial<MentionedFeed>;
  return Object.freeze({
    id,
    label: feed.label ?? '',
    slug: feed.slug ?? '',
    public_id: feed.public_id ?? '',
    chat_channel_name: feed.chat_channel_name ?? '',
  });
}, 256);

/** Mentioned profiles by chat user id (SQLite's lookup). */
async function selectMentionedProfiles(
  db: Db | Tx,
  communityId: string,
  chatUserIds: readonly string[],
): Promise<Map<string, MentionedProfile>> {
  const profiles = new Map<string, MentionedProfile>();
  for (const row of await selectProfileDocsByChatUserIds(db, communityId, chatUserIds)) {
    if (row.chat_user_id) profiles.set(row.chat_user_id, mentionedProfileOf(row.chat_user_id, row.doc));
  }
  return profiles;
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
    feeds.set(row.chat_channel_id, mentionedFeedOf(row.id, row.doc));
  }
  return feeds;
}
