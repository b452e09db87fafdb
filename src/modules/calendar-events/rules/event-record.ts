import type { Flag } from '../../../db/schema.js';
import { blocksFailure, derivedFieldFailure, instantAt, orDefault as or, textOrNull } from '../../../import/import-fields.js';
import { schemaCheck } from '../../../import/import-section.js';
import { extractMentions } from '../../../rich-text/extract-mentions.js';
import type { RichTextBlock } from '../../../rich-text/rich-text.schemas.js';
import { type Failure, refuse, refuseIf } from '../../../shared/failures.js';
import type { EpochMicros } from '../../../shared/time.js';
import { formatJsonTimestamp } from '../../../shared/timestamps.js';
import type { CalendarEventDoc, CalendarEventMentions } from '../queries/events.js';
import type { EventStatus, PublishedTo } from '../schemas/event.js';
import { type CalendarEventImport, CalendarEventImportSchema, derivedEventFields } from '../schemas/import-record.js';

/*
 * The rules of an event record (the import's record; the API's bodies are turned into one by
 * ./event-body.ts). A record that breaks one is refused with a Failure whose path is in the
 * record's field names (`host_profile_ids[1]`); each writer renders it in its own names.
 */

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

const shapeFailure = schemaCheck(CalendarEventImportSchema);
/** Epoch µs of a date-time the schema requires. */
const instant = (value: string, field: string): EpochMicros => instantAt(value, [field]) as EpochMicros;

/** The ids in order, refusing one that appears twice; UUIDs are compared (and stored) lower case. */
function distinctIds(ids: readonly string[] | null | undefined, pathOf: (j: number) => Failure['path'], lowerCase = true): string[] {
  const seen = new Set<string>();
  (ids ?? []).forEach((id, j) => {
    const key = lowerCase ? id.toLowerCase() : id;
    if (seen.has(key)) throw refuse(pathOf(j), 'duplicate', `duplicate id "${id}"`);
    seen.add(key);
  });
  return [...seen];
}

const flag = (value: boolean | null | undefined): Flag => (value === true ? 1 : 0);

/** Blocks the API answers as null when the event has none: absent, null and [] all mean "none". */
const blocksOrNull = (value: unknown[] | null | undefined): RichTextBlock[] | null =>
  value === undefined || value === null || value.length === 0 ? null : (value as RichTextBlock[]);

/** The file named as cover image, lower case; refused beside a cover_image_url (which it would replace). */
function coverImageFileIdOf(e: CalendarEventImport): string | null {
  if (e.cover_image_file_id == null) return null;
  if (e.cover_image_url != null && e.cover_image_url !== '')
    throw refuse(['cover_image_file_id'], 'conflict', 'cannot be given together with cover_image_url (the file gives the URL)');
  return e.cover_image_file_id.toLowerCase();
}

/** True for an absolute http(s) URL with a host and no whitespace (personal join links). */
export function isHttpUrl(value: string): boolean {
  if (/\s/.test(value)) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/**
 * Checks one event record (shape, blocks, dates, duplicates) and reduces it to what is stored;
 * throws Refused with the first failure.
 */
export function parseEventRecord(record: unknown): ParsedEvent {
  refuseIf(derivedFieldFailure(record, derivedEventFields));
  refuseIf(shapeFailure(record));
  const e = record as CalendarEventImport;
  if (e.description_chat_blocks != null) refuseIf(blocksFailure(['description_chat_blocks'], e.description_chat_blocks));
  if (e.recap_chat_blocks != null) refuseIf(blocksFailure(['recap_chat_blocks'], e.recap_chat_blocks));
  const start_at = instant(e.start_date, 'start_date');
  const end_at = e.end_date === undefined || e.end_date === null || e.end_date === '' ? null : instant(e.end_date, 'end_date');
  if (end_at !== null && end_at < start_at) throw refuse(['end_date'], 'order', 'must not be before start_date');

  distinctIds(
    e.tags?.map((tag) => tag.id),
    (j) => ['tags', j, 'id'],
    false,
  );
  const attendeeIds = distinctIds(
    e.attendees?.map((a) => a.profile_id),
    (j) => ['attendees', j, 'profile_id'],
  );
  const attendees = (e.attendees ?? []).map((attendee, j) => {
    const link = or(attendee.personal_join_link, '');
    if (link !== '' && !isHttpUrl(link)) throw refuse(['attendees', j, 'personal_join_link'], 'format', 'must be an http(s) URL');
    return {
      profileId: attendeeIds[j] as string,
      link: link === '' ? null : link,
      created_at: instantAt(attendee.created_at, ['attendees', j, 'created_at']),
      updated_at: instantAt(attendee.updated_at, ['attendees', j, 'updated_at']),
    };
  });
  const published_to: PublishedTo[] = (e.published_to ?? []).map((p, j) => {
    const feed_id = p.feed_id ? p.feed_id.toLowerCase() : null;
    const chat_channel_id = or(p.chat_channel_id, '');
    if (feed_id === null && chat_channel_id === '') throw refuse(['published_to', j], 'required', 'needs a feed_id or a chat_channel_id');
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
      created_at: instantAt(tag.created_at, ['tags', j, 'created_at']),
    })),
    mentions: JSON.stringify(mentions),
    hostIds: distinctIds(e.host_profile_ids, (j) => ['host_profile_ids', j]),
    speakerIds: distinctIds(e.speaker_profile_ids, (j) => ['speaker_profile_ids', j]),
    feedIds: [...new Set(published_to.flatMap((p) => (p.feed_id === null ? [] : [p.feed_id])))],
    attendees,
    given: {
      created_at: instantAt(e.created_at, ['created_at']),
      updated_at: instantAt(e.updated_at, ['updated_at']),
    },
    coverImageFileId: coverImageFileIdOf(e),
  };
}

/** The stored doc of a parsed event; tags without created_at take the event's. */
export function docOf(record: ParsedEvent, createdAt: EpochMicros): CalendarEventDoc {
  const tags = record.tags.map((tag) => ({ ...tag, created_at: formatJsonTimestamp(tag.created_at ?? createdAt) }));
  return { ...record.doc, tags };
}
