import { type Static, Type } from '@sinclair/typebox';
import { ImportUuid, Opt, OptText, OptTimestamp } from '../../import/import-fields.js';
import type { RichTextBlock } from '../../rich-text/index.js';
import { type References, ReferencesSchema, RichTextBlocksSchema } from '../../rich-text/rich-text.schemas.js';
import { Uuid } from '../../schemas/common.schemas.js';

/** The stored string fields of a feed (default ""). */
export const feedTextFields = [
  'public_id',
  'list_view_display_format',
  'post_detail_display_format',
  'chat_channel_id',
  'chat_channel_name',
  'visibility',
  'preset',
] as const;

/** The stored string fields of a feed that are `null` when the record has none (the hosted product's answer). */
export const feedNullableTextFields = ['emoji_icon', 'banner_file_id', 'banner_file_url'] as const;

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
type FeedNullableText = Record<(typeof feedNullableTextFields)[number], string | null>;
type FeedDocFlags = Record<(typeof feedDocFlags)[number], boolean>;

/** What a feed row's `doc` column holds: every stored field but id, timestamps and the two filter flags. */
export interface FeedDoc extends FeedText, FeedNullableText, FeedDocFlags {
  label: string;
  slug: string;
  chat_channel_num_members: number;
  chat_channel_purpose_chat_blocks: RichTextBlock[];
  chat_channel_topic_chat_blocks: RichTextBlock[];
}

/**
 * A feed as the API shows it (decisions.md, "Answering as the hosted product answers"): without
 * public_id, the timestamps, chat_channel_is_private and the fields from visibility onward. The
 * import keeps those fields; they are simply not answered.
 */
export interface Feed extends FeedNullableText {
  id: string;
  label: string;
  slug: string;
  is_archived: boolean;
  is_unlisted: boolean;
  list_view_display_format: string;
  post_detail_display_format: string;
  chat_channel_id: string;
  chat_channel_name: string;
  chat_channel_num_members: number;
  chat_channel_purpose_chat_blocks: RichTextBlock[];
  chat_channel_topic_chat_blocks: RichTextBlock[];
  chat_channel_purpose_chat_blocks_references: References;
  chat_channel_topic_chat_blocks_references: References;
  show_in_navigation_menu: boolean;
  is_site_posting_enabled: boolean;
}

/** `{id, label, slug}` of the feed a post belongs to. */
export interface FeedSummary {
  id: string;
  label: string;
  slug: string;
}

const NullableText = (description: string) => Type.Union([Type.String(), Type.Null()], { description });

/** The feed record of `GET /feeds/{feed_id}` and of `GET /feeds`, in the spec's field order. */
export const FeedSchema = Type.Object(
  {
    id: Uuid(),
    label: Type.String(),
    slug: Type.String(),
    emoji_icon: NullableText('null when the feed has none.'),
    banner_file_id: NullableText('null when the feed has no banner.'),
    banner_file_url: NullableText('null when the feed has no banner.'),
    is_archived: Type.Boolean(),
    is_unlisted: Type.Boolean(),
    list_view_display_format: Type.String({ description: 'Sample values: card, snippet.' }),
    post_detail_display_format: Type.String({ description: 'Sample value: discussion.' }),
    chat_channel_id: Type.String(),
    chat_channel_name: Type.String(),
    chat_channel_num_members: Type.Integer({ minimum: 0 }),
    chat_channel_purpose_chat_blocks: RichTextBlocksSchema,
    chat_channel_topic_chat_blocks: RichTextBlocksSchema,
    chat_channel_purpose_chat_blocks_references: ReferencesSchema,
    chat_channel_topic_chat_blocks_references: ReferencesSchema,
    show_in_navigation_menu: Type.Boolean(),
    is_site_posting_enabled: Type.Boolean(),
  },
  {
    title: 'Feed',
    description:
      'As the hosted product answers: public_id, created_at, updated_at, chat_channel_is_private and the fields from visibility onward are not answered.',
  },
);

/** The `feed` summary inside a post. */
export const FeedSummarySchema = Type.Object({ id: Uuid(), label: Type.String(), slug: Type.String() }, { title: 'FeedSummary' });

/** Query of `GET /feeds`. */
export const ListFeedsQuerySchema = Type.Object({
  page: Type.Integer({ minimum: 0, maximum: 2_147_483_647, default: 0, description: '0-based page number.' }),
  per_page: Type.Integer({ minimum: 1, maximum: 50, default: 10, description: 'Feeds per page, 1 to 50.' }),
});
export type ListFeedsQuery = Static<typeof ListFeedsQuerySchema>;

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
    ...Object.fromEntries([...feedTextFields, ...feedNullableTextFields].map((field) => [field, OptText()])),
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
  Partial<Record<(typeof feedTextFields)[number] | (typeof feedNullableTextFields)[number], string | null>> &
  Partial<Record<(typeof feedDocFlags)[number], boolean | null>>;
