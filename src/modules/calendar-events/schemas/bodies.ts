import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { StringEnum } from '../../../schemas/common.schemas.js';
import { CalendarEventSchema } from './event.js';

/*
 * Bodies of POST /calendar_events and PATCH /calendar_events/{id}. The same fields; in a PATCH
 * every field is optional (absent: unchanged) and `null` clears what may be cleared. Rules that
 * span fields (blocks or text, end after start, known hosts and tags) are the service's, each
 * answered with a 400 naming the field.
 */

/** Statuses the API may set: `draft` exists only through the import (as on the hosted product). */
const writableStatuses = ['published', 'needs_approval'] as const;

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const Text = (maxLength: number, description?: string) => Type.String({ maxLength, ...(description ? { description } : {}) });
const Blocks = (description: string) => Type.Array(Type.Unknown(), { maxItems: 50, description });
const DateTime = (description: string) => Type.String({ format: 'date-time', maxLength: 64, description });

/** A host or speaker: exactly one of the three identifiers, as in the group add. */
const EventPersonSchema = Type.Object(
  {
    chat_user_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    email: Type.Optional(Type.String({ minLength: 1, maxLength: 254 })),
    profile_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  },
  { additionalProperties: false, description: 'Exactly one of chat_user_id, email, profile_id; the profile must exist in the community.' },
);
export type EventPerson = Static<typeof EventPersonSchema>;

const fields = {
  title: Type.String({ minLength: 1, maxLength: 1000 }),
  start_date: DateTime('RFC 3339 date-time with a zone.'),
  end_date: Nullable(DateTime('Not before start_date; null: no end.')),
  show_end_date: Type.Boolean(),
  location: Text(2048),
  link: Nullable(Text(2048)),
  description_chat_blocks: Nullable(Blocks('Rich text blocks; not together with description_text.')),
  description_text: Text(20_000, 'Plain text turned into one rich text block; not together with description_chat_blocks.'),
  recap_chat_blocks: Nullable(Blocks('Rich text blocks; not together with recap_text.')),
  recap_text: Text(20_000, 'Plain text turned into one rich text block; not together with recap_chat_blocks.'),
  recording_link: Nullable(Text(2048)),
  cover_image_url: Nullable(Text(2048)),
  cover_image_file_id: Nullable(
    Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'An uploaded file of the community (POST /files): cover_image_url becomes its URL. Not together with cover_image_url.',
    }),
  ),
  external_speakers: Nullable(Text(10_000)),
  partner_event_id: Nullable(Text(256)),
  status: StringEnum(writableStatuses, { description: '`draft` cannot be set through the API (see docs/calendar-events.md).' }),
  is_unlisted: Type.Boolean(),
  publish_to_site: Type.Boolean(),
  allow_public_guest_list: Type.Boolean(),
  enable_registration_button: Type.Boolean(),
  use_registration_btn_as_link: Type.Boolean(),
  triggers_webhooks: Type.Boolean(),
  webhook_custom_metadata: Nullable(Text(10_000)),
  reminders_config: Type.Array(Type.Object({ minutes: Type.Integer({ minimum: 0, maximum: 525_600 }) }, { additionalProperties: false }), {
    maxItems: 20,
  }),
  slug: Type.String({
    minLength: 1,
    maxLength: 256,
    pattern: '^[a-z0-9]+(?:-[a-z0-9]+)*$',
    description: 'Lower-case letters, digits and single hyphens; unique in the community. Derived from the title when absent.',
  }),
  hosts: Type.Array(EventPersonSchema, { maxItems: 100 }),
  speakers: Type.Array(EventPersonSchema, { maxItems: 100 }),
  tags: Type.Array(Type.String({ minLength: 1, maxLength: 128 }), {
    maxItems: 100,
    description: 'Ids of tags the community already has (see docs/calendar-events.md: tags are created by the import).',
  }),
  publish_to_chat_channels: Type.Array(Type.String({ minLength: 1, maxLength: 32 }), {
    maxItems: 10,
    description: 'Chat channel ids to announce the event in, through the community chat connection.',
  }),
};

const AllFields = Type.Object(fields);

export const CreateEventBodySchema = Type.Object(
  { ...Type.Partial(Type.Omit(AllFields, ['title', 'start_date'])).properties, title: fields.title, start_date: fields.start_date },
  { additionalProperties: false },
);
export type CreateEventBody = Static<typeof CreateEventBodySchema>;

export const UpdateEventBodySchema = Type.Partial(AllFields, { additionalProperties: false });
export type UpdateEventBody = Static<typeof UpdateEventBodySchema>;

/** The event, and when a chat channel could not be posted to, a `message` saying which and why. */
export const WrittenEventResponseSchema = Type.Object({
  success: Type.Literal(true),
  message: Type.Optional(Type.String({ description: 'Present when some publish_to_chat_channels could not be posted to.' })),
  data: CalendarEventSchema,
});

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
