import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { ImportUuid, Opt, OptText, OptTimestamp } from '../../import/import-fields.js';
import type { References, RichTextBlock } from '../../rich-text/index.js';
import { ReferencesSchema, RichTextBlocksSchema } from '../../rich-text/index.js';
import { StringEnum, Timestamp, Uuid } from '../../schemas/common.schemas.js';
import { type FeedSummary, FeedSummarySchema } from '../feeds/feeds.schemas.js';
import { type Profile, ProfileSchema } from '../profiles/profiles.schemas.js';

/** The sorts of the posts list. */
const postSorts = ['newest', 'oldest', 'most-recent-activity'] as const;
export type PostSort = (typeof postSorts)[number];

/** Query of `GET /feeds/{feed_id}/posts`. */
export const ListPostsQuerySchema = Type.Object({
  page: Type.Integer({ minimum: 0, maximum: 2_147_483_647, default: 0, description: '0-based page number.' }),
  per_page: Type.Integer({ minimum: 1, maximum: 50, default: 10, description: 'Posts per page, 1 to 50.' }),
  sort: StringEnum(postSorts, {
    default: 'newest',
    description: 'newest (content_created_at desc), oldest, most-recent-activity (latest_activity_at desc); ties break by id.',
  }),
});
export type ListPostsQuery = Static<typeof ListPostsQuerySchema>;

/** Path of `GET /feeds/{feed_id}/posts`: a feed id or `home` (checked by the service for a clear message). */
export const PostsParamsSchema = Type.Object({
  feed_id: Type.String({ maxLength: 64, description: 'The feed\'s UUID, or "home" for every feed that is neither archived nor unlisted.' }),
});

/** Path of `GET /posts/{post_id}`: post ids are the import's (any string), compared exactly. */
export const PostParamsSchema = Type.Object({
  post_id: Type.String({ minLength: 1, maxLength: 256, description: 'The post id (case-sensitive).' }),
});

const UuidOrEmpty = (what: string) => Type.String({ description: `UUID of ${what}; "" when there is none.` });
/** A value the record may not have: `null` then, never "" (decisions.md, "Answering as the hosted product answers"). */
const Nullable = <T extends TSchema>(schema: T, description: string) => Type.Union([schema, Type.Null()], { description });

/** The chat message a post was made from. */
const ChatMessageSchema = Type.Object({
  id: UuidOrEmpty('the chat message'),
  message_ts: Nullable(
    Type.String(),
    'The chat platform\'s message timestamp as it spells it ("1747250195.525399": an id as much as a time); null when unknown.',
  ),
  blocks: RichTextBlocksSchema,
  markdown: Type.String({ description: 'Markdown rendering of the blocks unless the import gave one; emoji stay :shortcodes:.' }),
  permalink: Type.String(),
  parent_chat_message_id: Nullable(Type.String(), 'UUID of the parent message of a thread reply; null for a message that is not a reply.'),
  username: Nullable(Type.String(), 'null when the message carries none.'),
  icon: Nullable(Type.String(), 'null when the message carries none.'),
});

/** body_prosemirror: a ProseMirror document. */
const ProseMirrorDocSchema = Type.Object(
  { type: Type.String({ description: 'Always "doc".' }), content: Type.Array(Type.Unknown()) },
  { additionalProperties: true, description: 'ProseMirror document (JSON).' },
);

/** A post record of the posts list, in the spec's field order. */
export const PostSchema = Type.Object(
  {
    id: Type.String(),
    created_at: Timestamp(),
    updated_at: Timestamp(),
    content_created_at: Timestamp(),
    latest_activity_at: Timestamp(),
    title: Type.String(),
    slug: Type.String(),
    feed_id: Uuid(),
    post_detail_display_format: Type.String(),
    author_profile_id: Uuid(),
    read_time_minutes: Type.Integer({ minimum: 0 }),
    source: Type.String({ description: 'Sample value: chat.' }),
    file_attachments_count: Type.Integer({ minimum: 0 }),
    reactions_count: Type.Integer({ minimum: 0 }),
    comments_count: Type.Integer({ minimum: 0 }),
    body_plaintext: Type.String(),
    body_prosemirror: ProseMirrorDocSchema,
    chat_message: ChatMessageSchema,
    cover_image_file_id: Nullable(Type.String(), 'null when the post has no cover image.'),
    cover_image_url: Nullable(Type.String(), 'null when the post has no cover image.'),
    author: ProfileSchema,
    feed: FeedSummarySchema,
    references: ReferencesSchema,
  },
  { title: 'Post' },
);

export interface ChatMessage {
  id: string;
  message_ts: string | null;
  blocks: RichTextBlock[];
  markdown: string;
  permalink: string;
  parent_chat_message_id: string | null;
  username: string | null;
  icon: string | null;
}

/** What a post row's `doc` column holds: every stored field but the columns (ids, instants). */
export interface PostDoc {
  title: string;
  slug: string;
  post_detail_display_format: string;
  read_time_minutes: number;
  source: string;
  file_attachments_count: number;
  reactions_count: number;
  comments_count: number;
  body_plaintext: string;
  /** Derived (a ProseMirrorDoc) or imported: either way a `doc` node with content. */
  body_prosemirror: { type: string; content: unknown[] };
  chat_message: ChatMessage;
  cover_image_file_id: string | null;
  cover_image_url: string | null;
}

/** A post as the API shows it. */
export interface Post extends PostDoc {
  id: string;
  created_at: string;
  updated_at: string;
  content_created_at: string;
  latest_activity_at: string;
  feed_id: string;
  author_profile_id: string;
  author: Profile;
  feed: FeedSummary;
  references: References;
}

const Count = () => Opt(Type.Integer({ minimum: 0, maximum: 2_147_483_647 }));

/** A post record of the import file: the API's stored fields; id, feed_id and author_profile_id required. */
export const PostImportSchema = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 128, pattern: '^\\S+$', description: 'Any id without whitespace.' }),
    feed_id: ImportUuid(),
    author_profile_id: ImportUuid(),
    created_at: OptTimestamp(),
    updated_at: OptTimestamp(),
    content_created_at: OptTimestamp(),
    latest_activity_at: OptTimestamp(),
    title: OptText(2000),
    slug: OptText(400),
    post_detail_display_format: OptText(),
    read_time_minutes: Count(),
    source: OptText(),
    file_attachments_count: Count(),
    reactions_count: Count(),
    comments_count: Count(),
    body_plaintext: OptText(1_000_000),
    body_prosemirror: Opt(
      Type.Object({ type: Type.Literal('doc'), content: Type.Array(Type.Object({ type: Type.String() })) }, { additionalProperties: true }),
    ),
    chat_message: Opt(
      Type.Object(
        {
          // "" is how files written before these fields were nullable said "none".
          id: Opt(Type.Union([ImportUuid(), Type.Literal('')])),
          // Slack's `ts` ("1747250195.525399"); a number is read as seconds and spelled with six decimals.
          message_ts: Opt(
            Type.Union([
              Type.String({
                pattern: '^[0-9]{1,12}(\\.[0-9]{1,9})?$',
                maxLength: 32,
                description: 'Seconds, as the chat platform spells them.',
              }),
              Type.Number({ minimum: 0, maximum: 1e12 }),
            ]),
          ),
          // Checked element by element by validateBlocks.
          blocks: Opt(Type.Array(Type.Unknown())),
          markdown: OptText(1_000_000),
          permalink: OptText(),
          parent_chat_message_id: Opt(Type.Union([ImportUuid(), Type.Literal('')])),
          username: OptText(),
          icon: OptText(),
        },
        { additionalProperties: false },
      ),
    ),
    cover_image_file_id: OptText(),
    cover_image_url: OptText(),
  },
  { additionalProperties: false },
);
export type PostImport = Static<typeof PostImportSchema>;
