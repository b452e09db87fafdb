import { Type } from '@sinclair/typebox';
import { emptyReferences } from '../../rich-text/build-references.js';
import type { Mentions } from '../../rich-text/extract-mentions.js';
import { type References, ReferencesSchema } from '../../rich-text/rich-text.schemas.js';
import { jsonSerializer } from '../../schemas/json-text.js';
import { formatJsonTimestamp } from '../../shared/timestamps.js';
import type { EventPeople } from './queries/children.js';
import type { CalendarEventMentions, CalendarEventRow } from './queries/events.js';
import { CalendarEventSchema, EventPersonSchema } from './schemas/event.js';

// The row types are the statements' (./queries/): said again here for the module's readers of records.
export type { CalendarEventDoc, CalendarEventMentions, CalendarEventRow } from './queries/events.js';

const noMentions = (): Mentions => ({ userIds: [], channelIds: [], customEmojis: [], urls: [] });

/** The stored mentions of a row (an unreadable value counts as no mentions). */
export function mentionsOf(row: Pick<CalendarEventRow, 'mentions'>): CalendarEventMentions {
  const parsed = JSON.parse(row.mentions) as Partial<CalendarEventMentions> | null;
  return { description: parsed?.description ?? noMentions(), recap: parsed?.recap ?? noMentions() };
}

/** The fields of a record that come from the row's columns, serialised by the record's own schema. */
const serializeColumns = jsonSerializer(
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
);
const serializeReferences = jsonSerializer(ReferencesSchema);
let emptyReferencesText: string | undefined;
const emptyReferencesJson = (): string => {
  const text = emptyReferencesText ?? serializeReferences(emptyReferences());
  emptyReferencesText = text;
  return text;
};

const serializePerson = jsonSerializer(EventPersonSchema);

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
