import { type Static, Type } from '@sinclair/typebox';
import { Uuid } from '../schemas/common.schemas.js';

// Precise shapes of the spec's "Rich text blocks" section. They document the format (and
// type the code that builds blocks); responses use the permissive RichTextBlockSchema below.

/** Style of `text` and `link` elements. */
export const TextStyleSchema = Type.Object(
  {
    bold: Type.Optional(Type.Boolean()),
    italic: Type.Optional(Type.Boolean()),
    strike: Type.Optional(Type.Boolean()),
    code: Type.Optional(Type.Boolean()),
  },
  { description: 'Style of a text or link element.' },
);

/** Style of `user`, `channel` and `usergroup` mentions. */
export const MentionStyleSchema = Type.Object(
  {
    bold: Type.Optional(Type.Boolean()),
    italic: Type.Optional(Type.Boolean()),
    strike: Type.Optional(Type.Boolean()),
    highlight: Type.Optional(Type.Boolean()),
    client_highlight: Type.Optional(Type.Boolean()),
    unlink: Type.Optional(Type.Boolean()),
  },
  { description: 'Style of a user, channel or usergroup mention.' },
);

export const BroadcastElementSchema = Type.Object({
  type: Type.Literal('broadcast'),
  range: Type.Union([Type.Literal('here'), Type.Literal('channel'), Type.Literal('everyone')]),
});

export const ColorElementSchema = Type.Object({
  type: Type.Literal('color'),
  value: Type.String(),
});

export const ChannelElementSchema = Type.Object({
  type: Type.Literal('channel'),
  channel_id: Type.String(),
  style: Type.Optional(MentionStyleSchema),
});

export const DateElementSchema = Type.Object({
  type: Type.Literal('date'),
  timestamp: Type.Number({ description: 'Unix time in seconds.' }),
  format: Type.String(),
  url: Type.Optional(Type.String()),
  fallback: Type.Optional(Type.String()),
});

export const EmojiElementSchema = Type.Object({
  type: Type.Literal('emoji'),
  name: Type.String(),
  unicode: Type.Optional(Type.String({ description: 'Hex code points joined by "-", e.g. "1f44d-1f3fb".' })),
});

export const LinkElementSchema = Type.Object({
  type: Type.Literal('link'),
  url: Type.String(),
  text: Type.Optional(Type.String()),
  unsafe: Type.Optional(Type.Boolean()),
  style: Type.Optional(TextStyleSchema),
});

export const TextElementSchema = Type.Object({
  type: Type.Literal('text'),
  text: Type.String(),
  style: Type.Optional(TextStyleSchema),
});

export const UserElementSchema = Type.Object({
  type: Type.Literal('user'),
  user_id: Type.String(),
  style: Type.Optional(MentionStyleSchema),
});

export const UsergroupElementSchema = Type.Object({
  type: Type.Literal('usergroup'),
  usergroup_id: Type.String(),
  style: Type.Optional(MentionStyleSchema),
});

/** Every inline element the spec documents (for documentation and typing, not responses). */
export const InlineElementSchema = Type.Union([
  BroadcastElementSchema,
  ColorElementSchema,
  ChannelElementSchema,
  DateElementSchema,
  EmojiElementSchema,
  LinkElementSchema,
  TextElementSchema,
  UserElementSchema,
  UsergroupElementSchema,
]);

export const RichTextSectionSchema = Type.Object({
  type: Type.Literal('rich_text_section'),
  elements: Type.Array(InlineElementSchema),
});

export const RichTextListSchema = Type.Object({
  type: Type.Literal('rich_text_list'),
  style: Type.Union([Type.Literal('bullet'), Type.Literal('ordered')]),
  elements: Type.Array(RichTextSectionSchema),
  indent: Type.Optional(Type.Integer({ minimum: 0, description: 'Nesting level (Slack).' })),
  offset: Type.Optional(Type.Integer({ minimum: 0, description: 'Items numbered before this list (Slack).' })),
});

/** A rich text block exactly as the spec documents it (documentation and typing only). */
export const StrictRichTextBlockSchema = Type.Object({
  type: Type.Literal('rich_text'),
  block_id: Type.String(),
  elements: Type.Array(Type.Union([RichTextSectionSchema, RichTextListSchema])),
});

export type TextStyle = Static<typeof TextStyleSchema>;
export type MentionStyle = Static<typeof MentionStyleSchema>;
export type InlineElement = Static<typeof InlineElementSchema>;
export type RichTextSection = Static<typeof RichTextSectionSchema>;
export type RichTextList = Static<typeof RichTextListSchema>;
export type StrictRichTextBlock = Static<typeof StrictRichTextBlockSchema>;

// Response schemas. fast-json-stringify writes declared properties by their schema and
// everything else with JSON.stringify, so only properties whose type is the same for every
// element type are declared; the rest (including unknown element types) passes through.
// validateBlocks guarantees stored blocks fit: string `type`, string `block_id`, and every
// `elements` an array of objects with a string `type`.

const INLINE_DESCRIPTION =
  'Inline element, discriminated by type: ' +
  'broadcast {range: here|channel|everyone}; color {value}; ' +
  'channel {channel_id, style?}; date {timestamp (seconds), format, url?, fallback?}; ' +
  'emoji {name, unicode?}; link {url, text?, unsafe?, style?}; text {text, style?}; ' +
  'user {user_id, style?}; usergroup {usergroup_id, style?}. ' +
  'Text styles: bold, italic, strike, code; mention styles: bold, italic, strike, highlight, ' +
  'client_highlight, unlink. Other types may occur and are passed through unchanged.';

/** Any element inside a block element: a documented inline element or an unknown one. */
export const RichTextInlineItemSchema = Type.Object(
  { type: Type.String() },
  { additionalProperties: true, description: INLINE_DESCRIPTION },
);

/** An element of a block: rich_text_section, rich_text_list, or a type the spec does not list. */
export const RichTextElementSchema = Type.Object(
  {
    type: Type.String({ description: 'rich_text_section, rich_text_list or another type.' }),
    style: Type.Optional(Type.Unknown({ description: 'rich_text_list: "bullet" or "ordered".' })),
    elements: Type.Optional(
      Type.Array(RichTextInlineItemSchema, {
        description: 'rich_text_section: inline elements; rich_text_list: rich_text_section elements.',
      }),
    ),
  },
  {
    additionalProperties: true,
    description:
      'rich_text_section {type, elements: [inline element]} or ' +
      'rich_text_list {type, style: bullet|ordered, elements: [rich_text_section], indent?, offset?}.',
  },
);

/** A rich text block as responses carry it: unknown properties and element types survive. */
export const RichTextBlockSchema = Type.Object(
  {
    type: Type.String({ description: 'rich_text (other block types are passed through).' }),
    block_id: Type.Optional(Type.String()),
    elements: Type.Optional(Type.Array(RichTextElementSchema, { description: 'Always present on rich_text blocks.' })),
  },
  {
    additionalProperties: true,
    description: 'Rich text block {type: "rich_text", block_id, elements}.',
  },
);

/** An array of rich text blocks, for responses. */
export const RichTextBlocksSchema = Type.Array(RichTextBlockSchema);

export type RichTextBlock = Static<typeof RichTextBlockSchema>;

// References: a response schema, so every property is declared and required.

export const MentionedChatUserSchema = Type.Object(
  {
    profile_id: Uuid(),
    preferred_name: Type.String(),
    chat_user_id: Type.String(),
  },
  { additionalProperties: false },
);

export const MentionedChatChannelSchema = Type.Object(
  {
    chat_channel: Type.Object({ id: Type.String(), name: Type.String() }, { additionalProperties: false }),
    feed: Type.Object(
      {
        id: Uuid(),
        label: Type.String(),
        slug: Type.String(),
        public_id: Type.String(),
        chat_channel: Type.Object({ name: Type.String() }, { additionalProperties: false }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

export const CustomEmojiSchema = Type.Object(
  { alias: Type.String(), name: Type.String(), url: Type.String() },
  { additionalProperties: false },
);

export const UrlReferenceSchema = Type.Object(
  {
    order_seen: Type.Integer({ minimum: 0 }),
    is_embedded_media: Type.Boolean(),
    is_image: Type.Boolean(),
    is_video: Type.Boolean(),
    url: Type.String(),
  },
  { additionalProperties: false },
);

/** Users, channels, custom emojis and links that a piece of rich text refers to. */
export const ReferencesSchema = Type.Object(
  {
    mentioned_chat_users: Type.Array(MentionedChatUserSchema),
    mentioned_chat_channels: Type.Array(MentionedChatChannelSchema),
    custom_emojis: Type.Array(CustomEmojiSchema),
    urls: Type.Array(UrlReferenceSchema),
  },
  { additionalProperties: false },
);

export type MentionedChatUser = Static<typeof MentionedChatUserSchema>;
export type MentionedChatChannel = Static<typeof MentionedChatChannelSchema>;
export type CustomEmoji = Static<typeof CustomEmojiSchema>;
export type UrlReference = Static<typeof UrlReferenceSchema>;
export type References = Static<typeof ReferencesSchema>;
