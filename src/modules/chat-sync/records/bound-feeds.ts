import type { FeedRow } from '../../feeds/feeds.queries.js';
import type { FeedDoc } from '../../feeds/feeds.schemas.js';

/** A feed bound to a channel, as `feed list` shows it. */
export interface BoundFeedSummary {
  id: string;
  label: string;
  slug: string;
  chat_channel_id: string;
  chat_channel_name: string;
  sync_all_incoming_messages: boolean;
  is_archived: boolean;
}

export function summaryOf(row: FeedRow): BoundFeedSummary {
  const doc = JSON.parse(row.doc) as FeedDoc;
  return {
    id: row.id,
    label: doc.label,
    slug: doc.slug,
    chat_channel_id: row.chat_channel_id ?? '',
    chat_channel_name: doc.chat_channel_name,
    sync_all_incoming_messages: doc.sync_all_incoming_messages,
    is_archived: row.is_archived === 1,
  };
}
