import type { Flag } from '../../db/schema.js';
import { assertImportBlocks, assertNoDerivedFields, importInstant, orDefault as or, textOrNull } from '../../import/import-fields.js';
import { ImportError, schemaParser } from '../../import/import-section.js';
import { extractMentions } from '../../rich-text/extract-mentions.js';
import type { RichTextBlock } from '../../rich-text/rich-text.schemas.js';
import type { EpochMicros } from '../../shared/time.js';
import { type CalendarEventImport, CalendarEventImportSchema, derivedEventFields } from './calendar-events.import-schema.js';
import { type CalendarEventDoc, type CalendarEventMentions, isHttpUrl } from './calendar-events.records.js';
import type { EventStatus, PublishedTo } from './calendar-events.schemas.js';

export const section = 'calendar_events';

/** A tag as imported; created_at is settled when the event's own created_at is known. */
export interface ParsedTag {
  id: string;
  label: string;
  tag_group_id: string;
  created_at: EpochMicros | undefined;
}

/** An import record checked and reduced to what is stored (everything but timestamps settled). */
export interface ParsedEvent {
  id: string;
  status: EventStatus;
  start_at: EpochMicros;
  end_at: EpochMicros | null;
  publish_to_site: Flag;
  is_unlisted: Flag;
  doc: Omit<CalendarEventDoc, 'tags'>;
  tags: ParsedTag[];
  mentions: string;
  hostIds: string[];
  speakerIds: string[];
  /** Distinct feeds of published_to. */
  feedIds: string[];
  /** Timestamps undefined when the file leaves them out (the import time then). */
  attendees: { profileId: string; link: string | null; created_at: EpochMicros | undefined; updated_at: EpochMicros | undefined }[];
  given: { created_at: EpochMicros | undefined; updated_at: EpochMicros | undefined };
  /** An uploaded file whose URL is the cover image (resolved by resolveCoverImages); null when none is named. */
  coverImageFileId: string | null;
}

const parseShape = schemaParser<CalendarEventImport>(section, CalendarEventImportSchema);
const optionalInstant = (value: string | null | undefined, index: number, field: string) => importInstant(value, section, index, field);
/** Epoch µs of a date-time the schema requires. */
const instant = (value: string, index: number, field: string): EpochMicros => optionalInstant(value, index, field) as EpochMicros;

/** The ids in order, refusing one that appears twice; UUIDs are compared (and stored) lower case. */
function distinctIds(ids: readonly string[] | null | undefined, index: number, fieldOf: (j: number) => string, lowerCase = true): string[] {
  const seen = new Set<string>();
  (ids ?? []).forEach((id, j) => {
    const key = lowerCase ? id.toLowerCase() : id;
    if (seen.has(key)) throw new ImportError(section, index, fieldOf(j), `duplicate id "${id}"`);
    seen.add(key);
  });
  return [...seen];
}

const flag = (value: boolean | null | undefined): Flag => (value === true ? 1 : 0);

/** Blocks the API answers as null when the event has none: absent, null and [] all mean "none". */
const blocksOrNull = (value: unknown[] | null | undefined): RichTextBlock[] | null =>
  value === undefined || value === null || value.length === 0 ? null : (value as RichTextBlock[]);

/** The file named as cover image, lower case; refused beside a cover_image_url (which it would replace). */
function coverImageFileIdOf(e: CalendarEventImport, index: number): string | null {
  if (e.cover_image_file_id == null) return null;
  if (e.cover_image_url != null && e.cover_image_url !== '')
    throw new ImportError(section, index, 'cover_image_file_id', 'cannot be given together with cover_image_url (the file gives the URL)');
  return e.cover_image_file_id.toLowerCase();
}

/** Checks one record of the section (shape, blocks, dates, duplicates) and reduces it to what is stored. */
export function parseEventRecord(record: unknown, index: number): ParsedEvent {
  assertNoDerivedFields(section, index, record, derivedEventFields);
  const e = parseShape(record, index);
  if (e.description_chat_blocks != null) assertImportBlocks(section, index, 'description_chat_blocks', e.description_chat_blocks);
  if (e.recap_chat_blocks != null) assertImportBlocks(section, index, 'recap_chat_blocks', e.recap_chat_blocks);
  const start_at = instant(e.start_date, index, 'start_date');
  const end_at = e.end_date === undefined || e.end_date === null || e.end_date === '' ? null : instant(e.end_date, index, 'end_date');
  if (end_at !== null && end_at < start_at) throw new ImportError(section, index, 'end_date', 'must not be before start_date');

  distinctIds(
    e.tags?.map((tag) => tag.id),
    index,
    (j) => `tags[${j}].id`,
    false,
  );
  const attendeeIds = distinctIds(
    e.attendees?.map((a) => a.profile_id),
    index,
    (j) => `attendees[${j}].profile_id`,
  );
  const attendees = (e.attendees ?? []).map((attendee, j) => {
    const link = or(attendee.personal_join_link, '');
    if (link !== '' && !isHttpUrl(link))
      throw new ImportError(section, index, `attendees[${j}].personal_join_link`, 'must be an http(s) URL');
    return {
      profileId: attendeeIds[j] as string,
      link: link === '' ? null : link,
      created_at: optionalInstant(attendee.created_at, index, `attendees[${j}].created_at`),
      updated_at: optionalInstant(attendee.updated_at, index, `attendees[${j}].updated_at`),
    };
  });
  const published_to: PublishedTo[] = (e.published_to ?? []).map((p, j) => {
    const feed_id = p.feed_id ? p.feed_id.toLowerCase() : null;
    const chat_channel_id = or(p.chat_channel_id, '');
    if (feed_id === null && chat_channel_id === '')
      throw new ImportError(section, index, `published_to[${j}]`, 'needs a feed_id or a chat_channel_id');
    return { chat_channel_id, chat_message_permalink: or(p.chat_message_permalink, ''), feed_id };
  });
  // Blocks were checked by validateBlocks above, which is what the response schema needs.
  const description = blocksOrNull(e.description_chat_blocks);
  const recap = blocksOrNull(e.recap_chat_blocks);
  const mentions: CalendarEventMentions = { description: extractMentions(description ?? []), recap: extractMentions(recap ?? []) };

  return {
    id: e.id,
    status: e.status,
    start_at,
    end_at,
    publish_to_site: flag(e.publish_to_site),
    is_unlisted: flag(e.is_unlisted),
    doc: {
      title: or(e.title, ''),
      description_chat_blocks: description,
      recap_chat_blocks: recap,
      allow_public_guest_list: or(e.allow_public_guest_list, false),
      enable_registration_button: or(e.enable_registration_button, false),
      show_end_date: or(e.show_end_date, false),
      external_speakers: textOrNull(e.external_speakers),
      link: textOrNull(e.link),
      location: or(e.location, ''),
      partner_event_id: textOrNull(e.partner_event_id),
      triggers_webhooks: or(e.triggers_webhooks, false),
      webhook_custom_metadata: textOrNull(e.webhook_custom_metadata),
      recording_link: textOrNull(e.recording_link),
      slug: or(e.slug, ''),
      use_registration_btn_as_link: or(e.use_registration_btn_as_link, false),
      cover_image_url: or(e.cover_image_url, ''),
      published_to,
      reminders_config: (e.reminders_config ?? []).map((r) => ({ minutes: r.minutes })),
    },
    tags: (e.tags ?? []).map((tag, j) => ({
      id: tag.id,
      label: or(tag.label, ''),
      tag_group_id: or(tag.tag_group_id, ''),
      created_at: optionalInstant(tag.created_at, index, `tags[${j}].created_at`),
    })),
    mentions: JSON.stringify(mentions),
    hostIds: distinctIds(e.host_profile_ids, index, (j) => `host_profile_ids[${j}]`),
    speakerIds: distinctIds(e.speaker_profile_ids, index, (j) => `speaker_profile_ids[${j}]`),
    feedIds: [...new Set(published_to.flatMap((p) => (p.feed_id === null ? [] : [p.feed_id])))],
    attendees,
    given: {
      created_at: optionalInstant(e.created_at, index, 'created_at'),
      updated_at: optionalInstant(e.updated_at, index, 'updated_at'),
    },
    coverImageFileId: coverImageFileIdOf(e, index),
  };
}
