import { derivedOnce } from '../../shared/derived-once.js';
import type { FeedRow } from './feeds.queries.js';
import type { FeedDoc, FeedSummary } from './feeds.schemas.js';

const summaryOfFeedDoc = derivedOnce((id, text): FeedSummary => {
  const doc = JSON.parse(text) as Partial<FeedDoc>;
  return Object.freeze({ id, label: doc.label ?? '', slug: doc.slug ?? '' });
}, 256);

/**
 * The `feed` summary of a stored feed (a post's `feed`), parsed once per feed text (every post of a
 * page shows its feed's): one frozen object for a text, which renderers may key their own work on.
 */
export const feedSummaryOf = (row: Pick<FeedRow, 'id' | 'doc'>): FeedSummary => summaryOfFeedDoc(row.id, row.doc);

/** A feed as a channel mention shows it: its summary, with what a mention's reference adds. */
export interface MentionedFeed extends FeedSummary {
  public_id: string;
  chat_channel_name: string;
}
