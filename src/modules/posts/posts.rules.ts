import { blocksFailure, derivedFieldFailure, instantAt, orDefault, slugify, textOrNull } from '../../import/import-fields.js';
import { schemaCheck } from '../../import/import-section.js';
import {
  type RenderOptions,
  type RichTextBlock,
  readTimeMinutes,
  renderMarkdown,
  renderPlaintext,
  renderProseMirror,
} from '../../rich-text/index.js';
import { refuseIf } from '../../shared/failures.js';
import type { EpochMicros } from '../../shared/time.js';
import { type PostDoc, type PostImport, PostImportSchema } from './posts.schemas.js';

/** A checked post record (the import's, or one chat sync made of a message) with its instants parsed. */
export interface ParsedPost {
  record: PostImport;
  feedId: string;
  authorId: string;
  instants: Record<'created_at' | 'updated_at' | 'content_created_at' | 'latest_activity_at', EpochMicros | undefined>;
}

const derivedFields = { author: 'author_profile_id', feed: 'feed_id', references: 'the message blocks' };
const shapeFailure = schemaCheck(PostImportSchema);

/**
 * Checks a post record: no derived field, the schema's shape, message blocks the answer can carry,
 * instants in range. Refused with the first failure, its path in the record's field names.
 */
export function parsePostRecord(raw: unknown): ParsedPost {
  refuseIf(derivedFieldFailure(raw, derivedFields));
  refuseIf(shapeFailure(raw));
  const record = raw as PostImport;
  const blocks = record.chat_message?.blocks;
  if (blocks != null) refuseIf(blocksFailure(['chat_message', 'blocks'], blocks));
  const instant = (field: keyof ParsedPost['instants']) => instantAt(record[field], [field]);
  return {
    record,
    feedId: record.feed_id.toLowerCase(),
    authorId: record.author_profile_id.toLowerCase(),
    instants: {
      created_at: instant('created_at'),
      updated_at: instant('updated_at'),
      content_created_at: instant('content_created_at'),
      latest_activity_at: instant('latest_activity_at'),
    },
  };
}

/*
 * The derived fields of a post, computed once at import (reads only splice the stored doc):
 * plain text, Markdown and ProseMirror from the message blocks, and the read time from the
 * plain text. A value the file gives wins over the derived one.
 */

/** A text the file gave, or undefined when it gave none (absent, null or ""). */
const givenText = (value: string | null | undefined): string | undefined =>
  value === undefined || value === null || value === '' ? undefined : value;

/**
 * The message timestamp as the chat platform spells it: a string is kept as given (it is an id
 * as much as a time, so "1747250195.525399" must come back digit for digit); a number is
 * spelled with Slack's six decimals. None (or 0, the old "unknown") is null.
 */
function messageTs(value: string | number | null | undefined): string | null {
  if (value === undefined || value === null || value === '' || value === 0) return null;
  return typeof value === 'string' ? value : value.toFixed(6);
}

/** One rich text block holding the text as it is: the source of Markdown and ProseMirror for a post without blocks. */
function plaintextBlocks(text: string): RichTextBlock[] {
  if (text === '') return [];
  const section = { type: 'rich_text_section', elements: [{ type: 'text', text }] };
  return [{ type: 'rich_text', block_id: 'plaintext', elements: [section] }];
}

/**
 * The stored doc of a post import record. `options` name the mentioned users and channels
 * (`@Preferred Name`, `#channel`) as the community knows them at import time.
 */
export function derivePostDoc(post: PostImport, options: RenderOptions): PostDoc {
  const message = post.chat_message ?? {};
  // Shape checked by parsePostRecord.
  const blocks = orDefault(message.blocks, []) as RichTextBlock[];
  const body_plaintext = givenText(post.body_plaintext) ?? renderPlaintext(blocks, options);
  const source = blocks.length > 0 ? blocks : plaintextBlocks(body_plaintext);
  const title = orDefault(post.title, '');
  return {
    title,
    slug: orDefault(post.slug, slugify(title)),
    post_detail_display_format: orDefault(post.post_detail_display_format, ''),
    read_time_minutes: orDefault(post.read_time_minutes, readTimeMinutes(body_plaintext)),
    source: orDefault(post.source, ''),
    file_attachments_count: orDefault(post.file_attachments_count, 0),
    reactions_count: orDefault(post.reactions_count, 0),
    comments_count: orDefault(post.comments_count, 0),
    body_plaintext,
    body_prosemirror: post.body_prosemirror ?? renderProseMirror(source, options),
    chat_message: {
      id: orDefault(message.id, '').toLowerCase(),
      message_ts: messageTs(message.message_ts),
      blocks,
      markdown: givenText(message.markdown) ?? renderMarkdown(source, options),
      permalink: orDefault(message.permalink, ''),
      parent_chat_message_id: textOrNull(message.parent_chat_message_id)?.toLowerCase() ?? null,
      username: textOrNull(message.username),
      icon: textOrNull(message.icon),
    },
    cover_image_file_id: textOrNull(post.cover_image_file_id),
    cover_image_url: textOrNull(post.cover_image_url),
  };
}
