import { Type } from '@sinclair/typebox';
import fastJson from 'fast-json-stringify';
import type { Selectable } from 'kysely';
import type { CalendarEventsTable } from '../../db/schema.js';
import { emptyReferences } from '../../rich-text/build-references.js';
import type { Mentions } from '../../rich-text/extract-mentions.js';
import { type References, ReferencesSchema, type RichTextBlock } from '../../rich-text/rich-text.schemas.js';
import { compiledOnFirstCall } from '../../shared/compiled-on-first-call.js';
import { formatJsonTimestamp } from '../../shared/timestamps.js';
import { CalendarEventSchema, EventPersonSchema, type PublishedTo, type Reminder, type Tag } from './schemas/event.js';

/**
 * The stored fields of an event that are neither columns nor derived: the `doc` JSON. Columns
 * (status, dates, flags, counts, timestamps) are the only source of what they hold.
 */
export interface CalendarEventDoc {
  title: string;
  description_chat_blocks: RichTextBlock[] | null;
  recap_chat_blocks: RichTextBlock[] | null;
  allow_public_guest_list: boolean;
  enable_registration_button: boolean;
  show_end_date: boolean;
  external_speakers: string | null;
  link: string | null;
  location: string;
  partner_event_id: string | null;
  triggers_webhooks: boolean;
  webhook_custom_metadata: string | null;
  recording_link: string | null;
  slug: string;
  use_registration_btn_as_link: boolean;
  cover_image_url: string;
  published_to: PublishedTo[];
  tags: Tag[];
  reminders_config: Reminder[];
}

/** The `mentions` JSON: what the description and the recap blocks refer to. */
export interface CalendarEventMentions {
  description: Mentions;
  recap: Mentions;
}

/** A calendar_events row as read for responses. */
export type CalendarEventRow = Pick<
  Selectable<CalendarEventsTable>,
  | 'id'
  | 'status'
  | 'start_at'
  | 'end_at'
  | 'publish_to_site'
  | 'is_unlisted'
  | 'attendees_count'
  | 'doc'
  | 'mentions'
  | 'created_at'
  | 'updated_at'
>;

/** Columns selected for CalendarEventRow. */
export const eventRowColumns = [
  'id',
  'status',
  'start_at',
  'end_at',
  'publish_to_site',
  'is_unlisted',
  'attendees_count',
  'doc',
  'mentions',
  'created_at',
  'updated_at',
] as const;

/** Hosts and speakers of one event, in their stored order, as JSON text (stored profiles, or EventPerson once rendered). */
export interface EventPeople {
  hosts: string[];
  speakers: string[];
}

const noMentions = (): Mentions => ({ userIds: [], channelIds: [], customEmojis: [], urls: [] });

/** The stored mentions of a row (an unreadable value counts as no mentions). */
export function mentionsOf(row: Pick<CalendarEventRow, 'mentions'>): CalendarEventMentions {
  const parsed = JSON.parse(row.mentions) as Partial<CalendarEventMentions> | null;
  return { description: parsed?.description ?? noMentions(), recap: parsed?.recap ?? noMentions() };
}

/** The fields of a record that come from the row's columns, serialised by the record's own schema. */
const serializeColumns = compiledOnFirstCall(() =>
  fastJson(
    Type.Pick(CalendarEventSchema, [
      'id',
      'created_at',
      'updated_at',
      'start_date',
      'end_date',
      'is_unlisted',
      'publish_to_site',
      'status',
      'attendees_count',
    ]),
  ),
);
const serializeReferences = compiledOnFirstCall(() => fastJson(ReferencesSchema));
let emptyReferencesText: string | undefined;
const emptyReferencesJson = (): string => {
  const text = emptyReferencesText ?? serializeReferences(emptyReferences());
  emptyReferencesText = text;
  return text;
};

const serializePerson = compiledOnFirstCall(() => fastJson(EventPersonSchema));

/**
 * The host or speaker record (EventPersonSchema's fields only) of a stored profile's JSON text. The
 * serializer writes exactly the schema's fields, so the profile's e-mail and names stay out.
 */
export function eventPersonJson(profileJson: string): string {
  return serializePerson(JSON.parse(profileJson));
}

/** The members of a JSON object's text, without its braces. */
const members = (objectJson: string): string => objectJson.slice(1, -1);

/**
 * The API record of a row as JSON text, spliced from parts that are JSON already: the stored doc
 * (written by the import with every field of CalendarEventDoc, so nothing is parsed here), the
 * stored profiles of the hosts and speakers, and the columns and references serialised by their
 * schemas. test/http/spliced-records.test.ts checks that every record reads
 * back through the full CalendarEventSchema serializer unchanged.
 */
export function renderCalendarEvent(
  row: CalendarEventRow,
  people: EventPeople | undefined,
  references: { description: References; recap: References } | undefined,
): string {
  const columns = serializeColumns({
    id: row.id,
    created_at: formatJsonTimestamp(row.created_at),
    updated_at: formatJsonTimestamp(row.updated_at),
    start_date: formatJsonTimestamp(row.start_at),
    end_date: row.end_at === null ? '' : formatJsonTimestamp(row.end_at),
    is_unlisted: row.is_unlisted === 1,
    publish_to_site: row.publish_to_site === 1,
    status: row.status,
    attendees_count: Number(row.attendees_count),
  });
  const description = references ? serializeReferences(references.description) : emptyReferencesJson();
  const recap = references ? serializeReferences(references.recap) : emptyReferencesJson();
  return `{${members(columns)},${members(row.doc)},"hosts":[${people?.hosts.join(',') ?? ''}],"speakers":[${people?.speakers.join(',') ?? ''}],"description_chat_blocks_references":${description},"recap_chat_blocks_references":${recap}}`;
}

/** Whether the event sends calendar_event.* webhooks (its doc's `triggers_webhooks`). */
export function triggersWebhooks(row: Pick<CalendarEventRow, 'doc'>): boolean {
  return (JSON.parse(row.doc) as { triggers_webhooks?: unknown }).triggers_webhooks === true;
}
