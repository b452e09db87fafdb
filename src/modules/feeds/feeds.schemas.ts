import { type Static, Type } from '@sinclair/typebox';
import { Timestamp, Uuid } from '../../http/common.schemas.js';
import type { References, RichTextBlock } from '../../rich-text/index.js';
import { ReferencesSchema, RichTextBlocksSchema } from '../../rich-text/index.js';
import { ImportUuid, Opt, OptText, OptTimestamp } from './import-fields.js';

/** The stored string fields of a feed (default ""). */
export const feedTextFields = [
  'public_id',
  'emoji_icon',
  'banner_file_id',
  'banner_file_url',
  'list_view_display_format',
  'post_detail_display_format',
  'chat_channel_id',
  'chat_channel_name',
  'visibility',
  'preset',
] as const;

/** The stored boolean fields of a feed kept in `doc` (default false); is_archived/is_unlisted are columns. */
export const feedDocFlags = [
  'chat_channel_is_private',
  'show_in_navigation_menu',
  'is_site_posting_enabled',
  'sync_all_incoming_messages',
  'stores_new_messages',
  'ai_titles_enabled',
  'show_pinned_posts',
  'allow_selected_answer',
] as const;

/** The feed fields whose rich text blocks get a `*_references` companion. */
export const feedBlockFields = ['chat_channel_purpose_chat_blocks', 'chat_channel_topic_chat_blocks'] as const;

type FeedText = Record<(typeof feedTextFields)[number], string>;
type FeedDocFlags = Record<(typeof feedDocFlags)[number], boolean>;

/** What a feed row's `doc` column holds: every stored field but id, timestamps and the two filter flags. */
export interface FeedDoc extends FeedText, FeedDocFlags {
  label: string;
  slug: string;
  chat_channel_num_members: number;
  chat_channel_purpose_chat_blocks: RichTextBlock[];
  chat_channel_topic_chat_blocks: RichTextBlock[];
}

/** A feed as the API shows it. */
export interface Feed extends FeedDoc {
  id: string;
  created_at: string;
  updated_at: string;
  is_archived: boolean;
  is_unlisted: boolean;
  chat_channel_purpose_chat_blocks_references: References;
  chat_channel_topic_chat_blocks_references: References;
}

/** `{id, label, slug}` of the feed a post belongs to. */
export interface FeedSummary {
  id: string;
  label: string;
  slug: string;
}

/** The feed record of `GET /feeds/{feed_id}`, in the spec's field order. */
export const FeedSchema = Type.Object(
  {
    id: Uuid(),
    public_id: Type.String(),
    created_at: Timestamp(),
    updated_at: Timestamp(),
    label: Type.String(),
    slug: Type.String(),
    emoji_icon: Type.String(),
    banner_file_id: Type.String(),
    banner_file_url: Type.String(),
    is_archived: Type.Boolean(),
    is_unlisted: Type.Boolean(),
    list_view_display_format: Type.String({ description: 'Sample values: card, snippet.' }),
    post_detail_display_format: Type.String({ description: 'Sample value: discussion.' }),
    chat_channel_id: Type.String(),
    chat_channel_name: Type.String(),
    chat_channel_num_members: Type.Integer({ minimum: 0 }),
    chat_channel_is_private: Type.Boolean(),
    chat_channel_purpose_chat_blocks: RichTextBlocksSchema,
    chat_channel_purpose_chat_blocks_references: ReferencesSchema,
    chat_channel_topic_chat_blocks: RichTextBlocksSchema,
    chat_channel_topic_chat_blocks_references: ReferencesSchema,
    show_in_navigation_menu: Type.Boolean(),
    is_site_posting_enabled: Type.Boolean(),
    visibility: Type.String({ description: 'Sample value: disabled.' }),
    sync_all_incoming_messages: Type.Boolean(),
    stores_new_messages: Type.Boolean(),
    ai_titles_enabled: Type.Boolean(),
    show_pinned_posts: Type.Boolean(),
    allow_selected_answer: Type.Boolean(),
    preset: Type.String({ description: 'Sample value: discussion.' }),
  },
  { title: 'Feed' },
);

/** The `feed` summary inside a post. */
export const FeedSummarySchema = Type.Object({ id: Uuid(), label: Type.String(), slug: Type.String() }, { title: 'FeedSummary' });

/** Path of `GET /feeds/{feed_id}`. */
export const FeedParamsSchema = Type.Object({ feed_id: Uuid({ description: 'The feed id.' }) });

/** A feed record of the import file: the API's stored fields; only id and label are required. */
export const FeedImportSchema = Type.Object(
  {
    id: ImportUuid(),
    label: Type.String({ minLength: 1, maxLength: 200 }),
    slug: Opt(Type.String({ minLength: 1, maxLength: 200 })),
    created_at: OptTimestamp(),
    updated_at: OptTimestamp(),
    ...Object.fromEntries(feedTextFields.map((field) => [field, OptText()])),
    is_archived: Opt(Type.Boolean()),
    is_unlisted: Opt(Type.Boolean()),
    ...Object.fromEntries(feedDocFlags.map((field) => [field, Opt(Type.Boolean())])),
    chat_channel_num_members: Opt(Type.Integer({ minimum: 0 })),
    // Checked element by element by validateBlocks (clearer messages than a union schema).
    chat_channel_purpose_chat_blocks: Opt(Type.Array(Type.Unknown())),
    chat_channel_topic_chat_blocks: Opt(Type.Array(Type.Unknown())),
  },
  { additionalProperties: false },
);

/** A parsed feed import record (the spread fields typed by hand: TypeBox cannot see through fromEntries). */
export type FeedImport = Static<typeof FeedImportSchema> &
  Partial<Record<(typeof feedTextFields)[number], string | null>> &
  Partial<Record<(typeof feedDocFlags)[number], boolean | null>>;
