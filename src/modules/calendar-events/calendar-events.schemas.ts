import { type Static, Type } from '@sinclair/typebox';
import { BooleanString, PagedListSchema, StringEnum, Timestamp, Uuid } from '../../http/common.schemas.js';
import { ReferencesSchema, RichTextBlocksSchema } from '../../rich-text/rich-text.schemas.js';
import { ProfileSchema } from '../profiles/profiles.schemas.js';

export const eventStatuses = ['draft', 'needs_approval', 'published'] as const;
export type EventStatus = (typeof eventStatuses)[number];

export const timeFilters = ['upcoming', 'past', 'all'] as const;
export type TimeFilter = (typeof timeFilters)[number];

/** Calendar event ids: exactly 12 characters of [0-9a-zA-Z]. */
export const eventIdPattern = '^[0-9a-zA-Z]{12}$';

/** Largest accepted `page`: keeps page * per_page an exact integer on both engines. */
export const maxPage = 1_000_000_000;
export const maxPerPage = 50;
export const defaultPerPage = 10;
/** Most tag ids one `tag_ids` filter may list. */
export const maxTagIdsInFilter = 100;

export const TagSchema = Type.Object({
  id: Type.String(),
  created_at: Timestamp(),
  tag_group_id: Type.String(),
  label: Type.String(),
});
export type Tag = Static<typeof TagSchema>;

export const PublishedToSchema = Type.Object({
  chat_channel_id: Type.String(),
  chat_message_permalink: Type.String(),
  feed_id: Uuid(),
});
export type PublishedTo = Static<typeof PublishedToSchema>;

export const ReminderSchema = Type.Object({ minutes: Type.Integer() });
export type Reminder = Static<typeof ReminderSchema>;

// The profile shape without its $id: hosts and speakers embed it twice in one schema, and a
// schema id may appear only once per compiled schema.
const EventProfileSchema = Type.Object(ProfileSchema.properties, { title: 'Profile' });

/** A calendar event as the API shows it: every field of the spec, always present. */
export const CalendarEventSchema = Type.Object(
  {
    id: Type.String({ minLength: 12, maxLength: 12, pattern: '^[0-9a-zA-Z]+$' }),
    created_at: Timestamp(),
    updated_at: Timestamp(),
    allow_public_guest_list: Type.Boolean(),
    description_chat_blocks: Type.Union([RichTextBlocksSchema, Type.Null()]),
    description_chat_blocks_references: ReferencesSchema,
    recap_chat_blocks: RichTextBlocksSchema,
    recap_chat_blocks_references: ReferencesSchema,
    enable_registration_button: Type.Boolean(),
    start_date: Type.String({ description: 'ISO 8601 date-time in UTC.' }),
    end_date: Type.String({ description: 'ISO 8601 date-time in UTC, or "" when the event has no end.' }),
    show_end_date: Type.Boolean(),
    external_speakers: Type.String(),
    is_unlisted: Type.Boolean(),
    link: Type.String(),
    location: Type.String(),
    partner_event_id: Type.String(),
    publish_to_site: Type.Boolean(),
    triggers_webhooks: Type.Boolean(),
    webhook_custom_metadata: Type.String(),
    recording_link: Type.String(),
    slug: Type.String(),
    status: StringEnum(eventStatuses),
    title: Type.String(),
    use_registration_btn_as_link: Type.Boolean(),
    attendees_count: Type.Integer({ minimum: 0 }),
    published_to: Type.Array(PublishedToSchema),
    hosts: Type.Array(EventProfileSchema),
    speakers: Type.Array(EventProfileSchema),
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
    time_filter: Type.Optional(StringEnum(timeFilters, { default: 'upcoming', description: 'Relative to reference_date.' })),
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

export const AttendeeBodySchema = Type.Object(
  {
    user: Type.Object({ chat_user_id: Type.String({ minLength: 1, maxLength: 64 }) }, { additionalProperties: false }),
    personal_join_link: Type.Optional(
      Type.Union([Type.String({ maxLength: 2048 }), Type.Null()], {
        description: 'http(s) URL up to 2048 characters; "" or null clears it; absent leaves it unchanged.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type AttendeeBody = Static<typeof AttendeeBodySchema>;

export const SuccessResponseSchema = Type.Object({ success: Type.Literal(true) });
