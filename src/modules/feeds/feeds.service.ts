import type { Database } from '../../db/database.js';
import { notFound, validationFailed } from '../../errors.js';
import { extractMentions, type References } from '../../rich-text/index.js';
import { toIso } from '../../shared/clock.js';
import { isUuid } from '../../shared/ids.js';
import { resolveReferences } from '../references/resolve-references.js';
import { type FeedRow, selectFeedRow } from './feeds.queries.js';
import type { Feed, FeedDoc } from './feeds.schemas.js';

/**
 * A feed id from a path, lower-cased, or a 400 naming the parameter. The schema's `uuid` format
 * also admits a `urn:uuid:` prefix, which no stored id has.
 */
export function feedIdFromPath(value: string, rule = 'must be a UUID'): string {
  if (!isUuid(value)) throw validationFailed('path.feed_id', rule);
  return value.toLowerCase();
}

/** The stored feed of the community, or a 404 (also for another community's feed). */
export async function requireFeedRow(database: Database, communityId: string, feedId: string): Promise<FeedRow> {
  const row = await selectFeedRow(database.db, communityId, feedId);
  if (!row) throw notFound('Feed');
  return row;
}

/** `GET /feeds/{feed_id}`: the whole feed record with the references of its purpose and topic. */
export async function getFeed(database: Database, communityId: string, rawFeedId: string): Promise<Feed> {
  const row = await requireFeedRow(database, communityId, feedIdFromPath(rawFeedId));
  const doc = JSON.parse(row.doc) as FeedDoc;
  const [purpose, topic] = await resolveReferences(database.db, communityId, [
    extractMentions(doc.chat_channel_purpose_chat_blocks),
    extractMentions(doc.chat_channel_topic_chat_blocks),
  ]);
  return feedFromRow(row, doc, purpose as References, topic as References);
}

function feedFromRow(row: FeedRow, doc: FeedDoc, purpose: References, topic: References): Feed {
  return {
    ...doc,
    id: row.id,
    created_at: toIso(row.created_at),
    updated_at: toIso(row.updated_at),
    is_archived: row.is_archived === 1,
    is_unlisted: row.is_unlisted === 1,
    chat_channel_purpose_chat_blocks_references: purpose,
    chat_channel_topic_chat_blocks_references: topic,
  };
}
