import { type Static, Type } from '@sinclair/typebox';
import { Opt, OptText, OptTimestamp, ImportUuid as Uuid } from '../../../import/import-fields.js';
import { StringEnum } from '../../../schemas/common.schemas.js';
import { eventStatuses } from './event.js';

/*
 * A `calendar_events` record of the import file: the API's own field names, plus the ids that
 * derived fields are computed from. Exports from other systems often write null for "no value",
 * so an optional field may be absent or null and both mean "the default" (except
 * description_chat_blocks, whose null is a value of the API field).
 */

const Blocks = () => Type.Array(Type.Unknown(), { description: 'Rich text blocks, checked by validateBlocks.' });

/** Tag ids travel comma-separated in `tag_ids`, so they cannot hold a comma. */
const tagIdPattern = '^[^,\\s](?:[^,]*[^,\\s])?$';

const TagImportSchema = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 128, pattern: tagIdPattern }),
    label: OptText(500),
    tag_group_id: OptText(128),
    created_at: OptTimestamp(),
  },
  { additionalProperties: false },
);

// A message may be posted to a channel that is bound to no feed: feed_id is then absent or null.
const PublishedToImportSchema = Type.Object(
  {
    feed_id: Opt(Uuid()),
    chat_channel_id: OptText(64),
    chat_message_permalink: OptText(2048),
  },
  { additionalProperties: false },
);

const AttendeeImportSchema = Type.Object(
  {
    profile_id: Uuid(),
    personal_join_link: OptText(2048),
    created_at: OptTimestamp(),
    updated_at: OptTimestamp(),
  },
  { additionalProperties: false },
);

export const CalendarEventImportSchema = Type.Object(
  {
    id: Type.String({ pattern: '^[0-9a-zA-Z]{12}$' }),
    status: StringEnum(eventStatuses),
    start_date: Type.String({ format: 'date-time', maxLength: 64 }),
    end_date: OptText(64),
    title: OptText(1000),
    description_chat_blocks: Type.Optional(Type.Union([Blocks(), Type.Null()])),
    recap_chat_blocks: Opt(Blocks()),
    allow_public_guest_list: Opt(Type.Boolean()),
    enable_registration_button: Opt(Type.Boolean()),
    show_end_date: Opt(Type.Boolean()),
    is_unlisted: Opt(Type.Boolean()),
    publish_to_site: Opt(Type.Boolean()),
    triggers_webhooks: Opt(Type.Boolean()),
    use_registration_btn_as_link: Opt(Type.Boolean()),
    external_speakers: OptText(10_000),
    link: OptText(2048),
    location: OptText(2048),
    partner_event_id: OptText(256),
    webhook_custom_metadata: OptText(10_000),
    recording_link: OptText(2048),
    slug: OptText(256),
    cover_image_url: OptText(2048),
    // An uploaded file of the community (docs/files.md): cover_image_url becomes its URL. Not with cover_image_url.
    cover_image_file_id: Opt(Uuid()),
    created_at: OptTimestamp(),
    updated_at: OptTimestamp(),
    host_profile_ids: Opt(Type.Array(Uuid(), { maxItems: 100 })),
    speaker_profile_ids: Opt(Type.Array(Uuid(), { maxItems: 100 })),
    tags: Opt(Type.Array(TagImportSchema, { maxItems: 100 })),
    published_to: Opt(Type.Array(PublishedToImportSchema, { maxItems: 100 })),
    reminders_config: Opt(
      Type.Array(Type.Object({ minutes: Type.Integer({ minimum: 0, maximum: 525_600 }) }, { additionalProperties: false }), {
        maxItems: 20,
      }),
    ),
    attendees: Opt(Type.Array(AttendeeImportSchema, { maxItems: 100_000 })),
  },
  { additionalProperties: false },
);

export type CalendarEventImport = Static<typeof CalendarEventImportSchema>;

/** API fields computed by the service: refused with a message saying what they come from. */
export const derivedEventFields: Readonly<Record<string, string>> = {
  hosts: 'host_profile_ids',
  speakers: 'speaker_profile_ids',
  attendees_count: 'attendees',
  description_chat_blocks_references: 'description_chat_blocks',
  recap_chat_blocks_references: 'recap_chat_blocks',
};
