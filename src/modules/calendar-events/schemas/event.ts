import { type Static, Type } from '@sinclair/typebox';
import { ReferencesSchema, RichTextBlocksSchema } from '../../../rich-text/rich-text.schemas.js';
import { BooleanString, PagedListSchema, StringEnum, Timestamp, Uuid } from '../../../schemas/common.schemas.js';
import { ProfileSchema } from '../../profiles/profiles.schemas.js';

export const eventStatuses = ['draft', 'needs_approval', 'published'] as const;
export type EventStatus = (typeof eventStatuses)[number];

const timeFilters = ['upcoming', 'past', 'all'] as const;
export type TimeFilter = (typeof timeFilters)[number];

/** Calendar event ids: exactly 12 characters of [0-9a-zA-Z]. */
const eventIdPattern = '^[0-9a-zA-Z]{12}$';

/** Largest accepted `page`: keeps page * per_page an exact integer on both engines. */
const maxPage = 1_000_000_000;
const maxPerPage = 50;
export const defaultPerPage = 10;
/** Most tag ids one `tag_ids` filter may list. */
export const maxTagIdsInFilter = 100;

const TagSchema = Type.Object({
  id: Type.String(),
  created_at: Timestamp(),
  tag_group_id: Type.String(),
  label: Type.String(),
});
export type Tag = Static<typeof TagSchema>;

const PublishedToSchema = Type.Object({
  chat_channel_id: Type.String(),
  chat_message_permalink: Type.String(),
  feed_id: Type.Union([Uuid(), Type.Null()], { description: 'The feed bound to the channel; null when the channel has none.' }),
});
export type PublishedTo = Static<typeof PublishedToSchema>;

const ReminderSchema = Type.Object({ minutes: Type.Integer() });
export type Reminder = Static<typeof ReminderSchema>;

const profile = ProfileSchema.properties;
const ImageUrl = Type.String({ description: 'Image URL.' });

/**
 * A host or speaker: the fields of the profile the hosted product shows there (decisions.md), not
 * the e-mail and names a post's author carries. Embedded (no $id), as it appears twice in one schema.
 */
export const EventPersonSchema = Type.Object(
  {
    profile_id: profile.profile_id,
    created_at: profile.created_at,
    preferred_name: profile.preferred_name,
    preferred_image_original: ImageUrl,
    preferred_image_1024: ImageUrl,
    preferred_image_512: ImageUrl,
    preferred_image_192: ImageUrl,
    preferred_image_72: ImageUrl,
    preferred_image_48: ImageUrl,
    preferred_image_32: ImageUrl,
    preferred_image_24: ImageUrl,
    chat_user_id: profile.chat_user_id,
    chat_is_admin: profile.chat_is_admin,
    chat_is_bot: profile.chat_is_bot,
    chat_image_72: profile.chat_image_72,
    chat_image_original: profile.chat_image_original,
  },
  { title: 'EventPerson' },
);

/** A text the event may not have: null then, never "" (decisions.md, "Answering as the hosted product answers"). */
const NullableText = (description: string) => Type.Union([Type.String(), Type.Null()], { description });

/** A calendar event as the API shows it: every field of the spec, always present. */
export const CalendarEventSchema = Type.Object(
  {
    id: Type.String({ minLength: 12, maxLength: 12, pattern: '^[0-9a-zA-Z]+$' }),
    created_at: Timestamp(),
    updated_at: Timestamp(),
    allow_public_guest_list: Type.Boolean(),
    description_chat_blocks: Type.Union([RichTextBlocksSchema, Type.Null()]),
    description_chat_blocks_references: ReferencesSchema,
    recap_chat_blocks: Type.Union([RichTextBlocksSchema, Type.Null()], { description: 'null when the event has no recap.' }),
    recap_chat_blocks_references: ReferencesSchema,
    enable_registration_button: Type.Boolean(),
    start_date: Type.String({ description: 'ISO 8601 date-time in UTC.' }),
    end_date: Type.String({ description: 'ISO 8601 date-time in UTC, or "" when the event has no end.' }),
    show_end_date: Type.Boolean(),
    external_speakers: NullableText('null when there are none.'),
    is_unlisted: Type.Boolean(),
    link: NullableText('null when the event has no link.'),
    location: Type.String(),
    partner_event_id: NullableText('null when the event has no partner event.'),
    publish_to_site: Type.Boolean(),
    triggers_webhooks: Type.Boolean(),
    webhook_custom_metadata: NullableText('null when there is none.'),
    recording_link: NullableText('null when the event has no recording.'),
    slug: Type.String(),
    status: StringEnum(eventStatuses),
    title: Type.String(),
    use_registration_btn_as_link: Type.Boolean(),
    attendees_count: Type.Integer({ minimum: 0 }),
    published_to: Type.Array(PublishedToSchema),
    hosts: Type.Array(EventPersonSchema),
    speakers: Type.Array(EventPersonSchema),
    cover_image_url: Type.String(),
    tags: Type.Array(TagSchema),
    reminders_config: Type.Array(ReminderSchema),
  },
  { title: 'CalendarEvent' },
);
export type CalendarEvent = Static<typeof CalendarEventSchema>;

const DateTimeQuery = (description: string) => Type.String({ format: 'date-time', maxLength: 64, description });

/** Query of GET /calendar_events. Unknown parameters are refused, so a typo never goes unnoticed. */
export const ListQuerySchema = Type.Object(
  {
    page: Type.Optional(Type.Integer({ minimum: 0, maximum: maxPage, default: 0, description: '0-based page; empty means 0.' })),
    per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: maxPerPage, default: defaultPerPage })),
    time_filter: Type.Optional(
      StringEnum(timeFilters, { default: 'all', description: 'upcoming or past: relative to reference_date; all (the default): both.' }),
    ),
    date_filter: Type.Optional(DateTimeQuery('Only events overlapping the UTC calendar day containing this instant.')),
    reference_date: Type.Optional(DateTimeQuery('The instant splitting upcoming from past (default: now).')),
    status: Type.Optional(StringEnum(eventStatuses, { default: 'published' })),
    published_to_site: Type.Optional(BooleanString('Filter on publish_to_site.')),
    is_unlisted: Type.Optional(BooleanString('Filter on is_unlisted.')),
    feed_id: Type.Optional(Uuid({ description: 'Events published to this feed.' })),
    tag_ids: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 8192,
        description: `Comma-separated tag ids (at most ${maxTagIdsInFilter}); an event matches if it has any of them.`,
      }),
    ),
  },
  { additionalProperties: false },
);
export type ListQuery = Static<typeof ListQuerySchema>;

export const ListResponseSchema = Type.Object({ success: Type.Literal(true), data: PagedListSchema(CalendarEventSchema) });

export const GetParamsSchema = Type.Object({
  calendar_event_id: Type.String({ pattern: eventIdPattern, description: 'Exactly 12 characters of [0-9a-zA-Z].' }),
});

/** DELETE and PATCH take any non-empty id, as the spec says: one that cannot exist is a 404. */
export const MutationParamsSchema = Type.Object({ calendar_event_id: Type.String({ minLength: 1, maxLength: 256 }) });

export const EventResponseSchema = Type.Object({ success: Type.Literal(true), data: CalendarEventSchema });

export const DeleteResponseSchema = Type.Object({ success: Type.Literal(true), data: Type.Object({ id: Type.String() }) });
