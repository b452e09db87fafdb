import type { Flag } from '../../db/schema.js';
import { blocksFailure, derivedFieldFailure, instantAt, orDefault, slugify, textOrNull } from '../../import/import-fields.js';
import { schemaCheck } from '../../import/import-section.js';
import type { RichTextBlock } from '../../rich-text/index.js';
import { refuseIf } from '../../shared/failures.js';
import type { EpochMicros } from '../../shared/time.js';
import type { FeedRow } from './feeds.queries.js';
import {
  type FeedDoc,
  type FeedImport,
  FeedImportSchema,
  feedBlockFields,
  feedDocFlags,
  feedNullableTextFields,
  feedTextFields,
} from './feeds.schemas.js';

/** A feed record (the import's, or one chat sync made of a channel) checked and reduced to what is stored, timestamps still as given. */
export interface ParsedFeed {
  row: Omit<FeedRow, 'created_at' | 'updated_at'>;
  given: { created_at: EpochMicros | undefined; updated_at: EpochMicros | undefined };
}

const derivedFields = {
  chat_channel_purpose_chat_blocks_references: 'chat_channel_purpose_chat_blocks',
  chat_channel_topic_chat_blocks_references: 'chat_channel_topic_chat_blocks',
};
const shapeFailure = schemaCheck(FeedImportSchema);
const flag = (value: boolean | null | undefined): Flag => (value === true ? 1 : 0);

/**
 * Checks a feed record: no derived field, the schema's shape, blocks the answer can carry, instants
 * in range. Refused with the first failure, its path in the record's field names.
 */
export function parseFeedRecord(raw: unknown): ParsedFeed {
  refuseIf(derivedFieldFailure(raw, derivedFields));
  refuseIf(shapeFailure(raw));
  const feed = raw as FeedImport;
  for (const field of feedBlockFields) if (feed[field] != null) refuseIf(blocksFailure([field], feed[field]));
  const doc = feedDocOf(feed);
  return {
    row: {
      id: feed.id.toLowerCase(),
      chat_channel_id: doc.chat_channel_id === '' ? null : doc.chat_channel_id,
      is_archived: flag(feed.is_archived),
      is_unlisted: flag(feed.is_unlisted),
      doc: JSON.stringify(doc),
    },
    given: {
      created_at: instantAt(feed.created_at, ['created_at']),
      updated_at: instantAt(feed.updated_at, ['updated_at']),
    },
  };
}

/** The stored doc of a feed record, with defaults for what the record leaves out. */
function feedDocOf(feed: FeedImport): FeedDoc {
  const text = Object.fromEntries(feedTextFields.map((field) => [field, orDefault(feed[field], '')]));
  const nullable = Object.fromEntries(feedNullableTextFields.map((field) => [field, textOrNull(feed[field])]));
  const flags = Object.fromEntries(feedDocFlags.map((field) => [field, orDefault(feed[field], false)]));
  return {
    label: feed.label,
    slug: orDefault(feed.slug, slugify(feed.label)),
    ...(text as Pick<FeedDoc, (typeof feedTextFields)[number]>),
    ...(nullable as Pick<FeedDoc, (typeof feedNullableTextFields)[number]>),
    ...(flags as Pick<FeedDoc, (typeof feedDocFlags)[number]>),
    chat_channel_num_members: orDefault(feed.chat_channel_num_members, 0),
    // Shape checked by blocksFailure above.
    chat_channel_purpose_chat_blocks: orDefault(feed.chat_channel_purpose_chat_blocks, []) as RichTextBlock[],
    chat_channel_topic_chat_blocks: orDefault(feed.chat_channel_topic_chat_blocks, []) as RichTextBlock[],
  };
}
