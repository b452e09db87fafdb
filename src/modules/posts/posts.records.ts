import { Type } from '@sinclair/typebox';
import { type References, ReferencesSchema } from '../../rich-text/rich-text.schemas.js';
import { jsonSerializer } from '../../schemas/json-text.js';
import { derivedOnce } from '../../shared/derived-once.js';
import { epochMicros } from '../../shared/time.js';
import { formatTextTimestamp, parseTimestamp } from '../../shared/timestamps.js';
import { type FeedSummary, FeedSummarySchema } from '../feeds/feeds.schemas.js';
import { type Profile, ProfileSchema } from '../profiles/profiles.schemas.js';
import type { PostRow } from './posts.queries.js';
import { PostSchema } from './posts.schemas.js';

/** The fields of a record that come from the row's columns, serialised by the record's own schema. */
const serializeColumns = jsonSerializer(
  Type.Pick(PostSchema, ['id', 'created_at', 'updated_at', 'content_created_at', 'latest_activity_at', 'feed_id', 'author_profile_id']),
);
const serializeFeed = jsonSerializer(FeedSummarySchema);
const serializeReferences = jsonSerializer(ReferencesSchema);
const serializeProfile = jsonSerializer(ProfileSchema);

/** An author's part of a post record from its stored profile, derived once per profile text (a page often repeats authors). */
const authorPart = derivedOnce((_profileId, profileJson) => serializeProfile(inTextSpelling(profileJson)), 1024);

/** The serialised feed summary of each summary object: feedSummaryOf gives one object per stored feed text. */
const feedParts = new WeakMap<FeedSummary, string>();
function feedPart(feed: FeedSummary): string {
  const known = feedParts.get(feed);
  if (known !== undefined) return known;
  const json: string = serializeFeed(feed);
  feedParts.set(feed, json);
  return json;
}

/** The members of a JSON object's text, without its braces. */
const members = (objectJson: string): string => objectJson.slice(1, -1);

/**
 * The API record of a post row as JSON text, spliced from parts that are JSON already: the stored
 * doc (every field of PostDoc, derived once at import), the author's stored profile, and the
 * columns, feed summary and references serialised by their schemas. Like events (see
 * calendar-events.records.ts), checked against the full PostSchema by spliced-records.test.ts.
 */
export function renderPost(row: PostRow, authorJson: string | undefined, feed: FeedSummary, references: References): string {
  const authorId = row.author_profile_id ?? '';
  const columns = serializeColumns({
    id: row.id,
    created_at: formatTextTimestamp(row.created_at),
    updated_at: formatTextTimestamp(row.updated_at),
    content_created_at: formatTextTimestamp(row.content_created_at),
    latest_activity_at: formatTextTimestamp(row.latest_activity_at),
    feed_id: row.feed_id,
    author_profile_id: authorId,
  });
  const author = authorJson === undefined ? serializeProfile(placeholderProfile(authorId)) : authorPart(authorId, authorJson);
  return `{${members(columns)},${members(row.doc)},"author":${author},"feed":${feedPart(feed)},"references":${serializeReferences(references)}}`;
}

/**
 * A stored profile (its created_at in the JSON spelling, as events show it) with created_at in
 * PostgreSQL's text spelling, as post records show every timestamp (decisions.md).
 */
function inTextSpelling(profileJson: string): Profile {
  const profile = JSON.parse(profileJson) as Profile;
  const instant = parseTimestamp(profile.created_at);
  return instant === undefined ? profile : { ...profile, created_at: formatTextTimestamp(instant) };
}

// Import refuses posts without an author profile and nothing deletes profiles, so this only
// shows up if rows were written by other means; a complete record beats a 500 for the page.
function placeholderProfile(profileId: string): Profile {
  const blank = '';
  return {
    profile_id: profileId,
    created_at: formatTextTimestamp(epochMicros(0)),
    preferred_name: blank,
    preferred_image_original: blank,
    preferred_image_1024: blank,
    preferred_image_512: blank,
    preferred_image_192: blank,
    preferred_image_72: blank,
    preferred_image_48: blank,
    preferred_image_32: blank,
    preferred_image_24: blank,
    first_name: blank,
    last_name: blank,
    email: null,
    chat_user_id: blank,
    chat_is_admin: false,
    chat_is_bot: false,
    chat_first_name: blank,
    chat_last_name: blank,
    chat_image_72: blank,
    chat_image_original: blank,
  };
}
