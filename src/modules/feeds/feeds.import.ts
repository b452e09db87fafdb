import type { Flag } from '../../db/schema.js';
import {
  assertImportBlocks,
  assertNoDerivedFields,
  importInstant,
  orDefault,
  resolveStamps,
  slugify,
  textOrNull,
} from '../../import/import-fields.js';
import type { ImportSection } from '../../import/import-section.js';
import { assertUniqueIds, schemaParser } from '../../import/import-section.js';
import type { RichTextBlock } from '../../rich-text/index.js';
import type { EpochMicros } from '../../shared/time.js';
import { updatePostsInHome } from '../posts/posts.queries.js';
import { type FeedRow, homeFlag, selectFeedRows, upsertFeeds } from './feeds.queries.js';
import {
  type FeedDoc,
  type FeedImport,
  FeedImportSchema,
  feedBlockFields,
  feedDocFlags,
  feedNullableTextFields,
  feedTextFields,
} from './feeds.schemas.js';

const section = 'feeds';
const derivedFields = {
  chat_channel_purpose_chat_blocks_references: 'chat_channel_purpose_chat_blocks',
  chat_channel_topic_chat_blocks_references: 'chat_channel_topic_chat_blocks',
};
const parseShape = schemaParser<FeedImport>(section, FeedImportSchema);

/** A feed import record checked and reduced to what is stored, timestamps still as given. */
export interface ParsedFeed {
  row: Omit<FeedRow, 'created_at' | 'updated_at'>;
  given: { created_at: EpochMicros | undefined; updated_at: EpochMicros | undefined };
}

function parseFeed(record: unknown, index: number): ParsedFeed {
  assertNoDerivedFields(section, index, record, derivedFields);
  const feed = parseShape(record, index);
  for (const field of feedBlockFields) if (feed[field] != null) assertImportBlocks(section, index, field, feed[field]);
  const doc = feedDocFromImport(feed);
  const flag = (value: boolean | null | undefined): Flag => (value === true ? 1 : 0);
  return {
    row: {
      id: feed.id.toLowerCase(),
      chat_channel_id: doc.chat_channel_id === '' ? null : doc.chat_channel_id,
      is_archived: flag(feed.is_archived),
      is_unlisted: flag(feed.is_unlisted),
      doc: JSON.stringify(doc),
    },
    given: {
      created_at: importInstant(feed.created_at, section, index, 'created_at'),
      updated_at: importInstant(feed.updated_at, section, index, 'updated_at'),
    },
  };
}

/** The stored doc of an import record, with defaults for what the file leaves out. */
function feedDocFromImport(feed: FeedImport): FeedDoc {
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
    // Shape checked by assertImportBlocks above.
    chat_channel_purpose_chat_blocks: orDefault(feed.chat_channel_purpose_chat_blocks, []) as RichTextBlock[],
    chat_channel_topic_chat_blocks: orDefault(feed.chat_channel_topic_chat_blocks, []) as RichTextBlock[],
  };
}

/**
 * The `feeds` section. Upserts by id, and keeps `posts.in_home` in step: every post of a feed
 * whose archived/unlisted flags move it in or out of the Home feed is updated here.
 */
export const feedsImportSection: ImportSection<ParsedFeed> = {
  name: section,
  parse: parseFeed,
  async apply(tx, records, context) {
    assertUniqueIds(section, records, (record) => record.row.id);
    const stored = await selectFeedRows(
      tx,
      context.communityId,
      records.map((record) => record.row.id),
    );
    const joining: string[] = [];
    const leaving: string[] = [];
    const rows = records.map(({ row, given }): FeedRow => {
      const before = stored.get(row.id);
      if (before && homeFlag(before) !== homeFlag(row)) (homeFlag(row) === 1 ? joining : leaving).push(row.id);
      const unchanged =
        before !== undefined && before.doc === row.doc && before.is_archived === row.is_archived && before.is_unlisted === row.is_unlisted;
      return { ...row, ...resolveStamps(given, before && { ...before, unchanged }, context.now) };
    });
    await upsertFeeds(tx, context.communityId, rows);
    await updatePostsInHome(tx, context.communityId, joining, 1);
    await updatePostsInHome(tx, context.communityId, leaving, 0);
    return records.length;
  },
};
