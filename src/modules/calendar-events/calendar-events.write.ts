import type { Db, Tx } from '../../db/database.js';
import { notFound, UserInputError, validationFailed } from '../../errors.js';
import { randomAlphanumericId } from '../../shared/ids.js';
import type { JsonText } from '../../shared/json-text.js';
import type { ServiceDeps } from '../../shared/service-deps.js';
import { type EpochMicros, epochMicros } from '../../shared/time.js';
import { formatJsonTimestamp } from '../../shared/timestamps.js';
import { writeCommunityData } from '../../write-path/write-community-data.js';
import { selectProfileIdBy } from '../groups/groups.queries.js';
import { userIdentifier } from '../groups/groups.service.js';
import { type Announcement, announceEvent } from './calendar-events.announce.js';
import { resolveCoverImages } from './calendar-events.cover-image.js';
import { docOf } from './calendar-events.import.js';
import { type ParsedEvent, parseEventRecord } from './calendar-events.import-parse.js';
import { insertEventChildren } from './calendar-events.import-queries.js';
import { selectCalendarEventRow } from './calendar-events.queries.js';
import type { CalendarEventDoc, CalendarEventRow } from './calendar-events.records.js';
import type { PublishedTo } from './calendar-events.schemas.js';
import { eventWebhookData, getCalendarEvent, renderCalendarEvents } from './calendar-events.service.js';
import {
  deleteEventDescriptors,
  insertEventRow,
  selectEventPeopleIds,
  selectKnownTags,
  selectTakenSlugs,
  updateEventRow,
} from './calendar-events.write-queries.js';
import type { CreateEventBody, EventPerson, UpdateEventBody } from './calendar-events.write-schemas.js';

/** The services, and the base of uploaded files' URLs (a cover_image_file_id). */
export type EventWriteDeps = ServiceDeps & { publicBaseUrl: () => string };

/** The event as GET shows it (JSON text) and, when some channel could not be posted to, why. */
export interface WrittenEvent {
  id: string;
  event: string;
  message?: string;
}

type ImportRecord = Record<string, unknown>;
type WriteBody = UpdateEventBody | CreateEventBody;

/** Fields copied as they are into the import-shaped record (null there means "the default", i.e. cleared). */
const plainFields = [
  'title',
  'start_date',
  'end_date',
  'show_end_date',
  'location',
  'link',
  'recording_link',
  'cover_image_url',
  'external_speakers',
  'partner_event_id',
  'status',
  'is_unlisted',
  'publish_to_site',
  'allow_public_guest_list',
  'enable_registration_button',
  'use_registration_btn_as_link',
  'triggers_webhooks',
  'webhook_custom_metadata',
  'reminders_config',
  'slug',
] as const;

/** Plain text as one rich text block (newlines kept inside the text, as the chat platform does). */
function textBlocks(text: string): unknown[] {
  if (text === '') return [];
  return [{ type: 'rich_text', block_id: 'text', elements: [{ type: 'rich_text_section', elements: [{ type: 'text', text }] }] }];
}

/** Blocks from `<name>_chat_blocks` or `<name>_text`, never both; undefined when the body has neither. */
function blocksOf(body: WriteBody, name: 'description' | 'recap'): unknown[] | null | undefined {
  const blocks = body[`${name}_chat_blocks`];
  const text = body[`${name}_text`];
  if (blocks !== undefined && text !== undefined) {
    throw validationFailed(`body.${name}_text`, `cannot be sent together with ${name}_chat_blocks (send one of them)`);
  }
  return text !== undefined ? textBlocks(text) : blocks;
}

/** Profile ids of hosts or speakers; 400 naming the entry that names no profile of the community. */
async function resolvePeople(
  db: Db | Tx,
  communityId: string,
  people: readonly EventPerson[],
  field: 'hosts' | 'speakers',
): Promise<string[]> {
  const ids: string[] = [];
  for (const [j, person] of people.entries()) {
    let identifier: ReturnType<typeof userIdentifier>;
    try {
      identifier = userIdentifier(person);
    } catch {
      throw validationFailed(`body.${field}[${j}]`, 'must hold exactly one of chat_user_id, email, profile_id');
    }
    const id = await selectProfileIdBy(db, communityId, identifier);
    const given = Object.entries(person).find(([, value]) => value !== undefined);
    if (id === undefined) throw validationFailed(`body.${field}[${j}]`, `no profile with ${given?.[0]} "${given?.[1]}" in this community`);
    ids.push(id);
  }
  return ids;
}

/** Tag records of the given ids; 400 naming the first id no event of the community carries. */
async function resolveTags(db: Db | Tx, communityId: string, ids: readonly string[]) {
  const known = await selectKnownTags(db, communityId, ids);
  return ids.map((id, j) => {
    const tag = known.get(id);
    if (!tag) throw validationFailed(`body.tags[${j}]`, `no tag "${id}" in this community (tags come from the import)`);
    return tag;
  });
}

/** A slug from a title: lower-case ASCII letters and digits joined by single hyphens, at most 80 characters. */
export function slugOfTitle(title: string): string {
  const slug = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80)
    .replace(/-+$/, '');
  return slug === '' ? 'event' : slug;
}

/** Suffixed candidates looked up per statement when the title's slug is taken. */
const slugCandidatesPerLookup = 50;

/** The given slug when free (400 otherwise), or the title's slug made unique with -2, -3, ... */
async function settleSlug(db: Db | Tx, communityId: string, eventId: string, given: string | undefined, title: string): Promise<string> {
  const holderOf = async (slugs: string[]) => selectTakenSlugs(db, communityId, slugs);
  if (given !== undefined) {
    const holder = (await holderOf([given])).get(given);
    if (holder !== undefined && holder !== eventId) {
      throw validationFailed('body.slug', `"${given}" is already the slug of another event of this community`);
    }
    return given;
  }
  const base = slugOfTitle(title);
  for (let from = 1; ; from += slugCandidatesPerLookup) {
    const candidates = Array.from({ length: slugCandidatesPerLookup }, (_, i) => (from + i === 1 ? base : `${base}-${from + i}`));
    const taken = await holderOf(candidates);
    const free = candidates.find((slug) => taken.get(slug) === undefined || taken.get(slug) === eventId);
    if (free !== undefined) return free;
  }
}

/** The import parser's verdict as the API's 400, naming the body field (host_profile_ids[1] is hosts[1]). */
function parseAsApi(record: ImportRecord): ParsedEvent {
  try {
    return parseEventRecord(record, 0);
  } catch (error) {
    throw asApiError(error);
  }
}

/** The parsed event with its cover image file resolved (400 naming cover_image_file_id when the community has no such file). */
async function withCoverImage(db: Db | Tx, communityId: string, parsed: ParsedEvent, baseUrl: string): Promise<ParsedEvent> {
  try {
    await resolveCoverImages(db, communityId, [parsed], baseUrl);
    return parsed;
  } catch (error) {
    throw asApiError(error);
  }
}

/** An import error of the single record an API write checks, as the 400 naming the body field. */
function asApiError(error: unknown): unknown {
  if (!(error instanceof UserInputError)) return error;
  const match = /^calendar_events\[0\]\.(\S+): ([\s\S]*)$/.exec(error.message);
  if (!match) return validationFailed('body', error.message);
  const field = (match[1] as string)
    .replace(/^host_profile_ids/, 'hosts')
    .replace(/^speaker_profile_ids/, 'speakers')
    .replace(/^tags\[(\d+)\]\.id$/, 'tags[$1]');
  return validationFailed(`body.${field}`, match[2] as string);
}

/** An event's stored state as an import record, so that a PATCH goes through the same parser as the import. */
async function storedRecord(
  db: Db | Tx,
  communityId: string,
  id: string,
): Promise<{ record: ImportRecord; publishedTo: PublishedTo[]; createdAt: EpochMicros } | null> {
  const row = await selectCalendarEventRow(db, communityId, id);
  if (!row) return null;
  const { published_to, tags, ...doc } = JSON.parse(row.doc) as CalendarEventDoc;
  const people = await selectEventPeopleIds(db, communityId, id);
  return {
    record: {
      ...doc,
      id,
      status: row.status,
      start_date: formatJsonTimestamp(epochMicros(Number(row.start_at))),
      end_date: row.end_at === null ? null : formatJsonTimestamp(epochMicros(Number(row.end_at))),
      is_unlisted: row.is_unlisted === 1,
      publish_to_site: row.publish_to_site === 1,
      tags,
      host_profile_ids: people.hosts,
      speaker_profile_ids: people.speakers,
    },
    publishedTo: published_to,
    createdAt: epochMicros(Number(row.created_at)),
  };
}

/** The record after applying the body's fields (absent: unchanged; null: cleared), references resolved. */
async function applyBody(db: Db | Tx, communityId: string, id: string, base: ImportRecord, body: WriteBody): Promise<ImportRecord> {
  const record: ImportRecord = { ...base, id };
  for (const field of plainFields) if (body[field] !== undefined) record[field] = body[field];
  if (body.cover_image_file_id !== undefined) {
    if (body.cover_image_url !== undefined)
      throw validationFailed('body.cover_image_file_id', 'cannot be sent together with cover_image_url (the file gives the URL)');
    // The file's URL replaces the stored one; null clears the cover image.
    record.cover_image_url = null;
    if (body.cover_image_file_id !== null) record.cover_image_file_id = body.cover_image_file_id;
  }
  const description = blocksOf(body, 'description');
  if (description !== undefined) record.description_chat_blocks = description;
  const recap = blocksOf(body, 'recap');
  if (recap !== undefined) record.recap_chat_blocks = recap;
  if (body.hosts !== undefined) record.host_profile_ids = await resolvePeople(db, communityId, body.hosts, 'hosts');
  if (body.speakers !== undefined) record.speaker_profile_ids = await resolvePeople(db, communityId, body.speakers, 'speakers');
  if (body.tags !== undefined) record.tags = await resolveTags(db, communityId, body.tags);
  // A new event gets a slug from its title; a stored event keeps its slug unless the body sets one.
  const keepSlug = body.slug === undefined && Object.hasOwn(base, 'slug');
  if (!keepSlug) record.slug = await settleSlug(db, communityId, id, body.slug, String(record.title ?? ''));
  // published_to is the write path's own (its feed may be null); the parser sees none.
  record.published_to = [];
  return record;
}

/** The stored row and child rows of a parsed event. */
function rowsOf(communityId: string, parsed: ParsedEvent, publishedTo: PublishedTo[], createdAt: EpochMicros, now: EpochMicros) {
  const doc: CalendarEventDoc = { ...docOf(parsed, createdAt), published_to: publishedTo };
  const feedIds = [...new Set(publishedTo.flatMap((p) => (p.feed_id ? [p.feed_id] : [])))];
  const event_id = parsed.id;
  return {
    row: {
      status: parsed.status,
      start_at: parsed.start_at,
      end_at: parsed.end_at,
      ends_at: parsed.end_at ?? parsed.start_at,
      publish_to_site: parsed.publish_to_site,
      is_unlisted: parsed.is_unlisted,
      doc: JSON.stringify(doc),
      mentions: parsed.mentions,
      updated_at: now,
    },
    children: {
      tags: parsed.tags.map((tag) => ({ community_id: communityId, event_id, tag_id: tag.id, event_updated_at: now })),
      feeds: feedIds.map((feed_id) => ({ community_id: communityId, event_id, feed_id })),
      people: [
        ...parsed.hostIds.map((profile_id, position) => ({
          community_id: communityId,
          event_id,
          role: 'host' as const,
          position,
          profile_id,
        })),
        ...parsed.speakerIds.map((profile_id, position) => ({
          community_id: communityId,
          event_id,
          role: 'speaker' as const,
          position,
          profile_id,
        })),
      ],
      attendees: [],
    },
  };
}

async function renderOne(tx: Tx, communityId: string, id: string): Promise<JsonText | undefined> {
  return eventWebhookData(tx, communityId, await selectCalendarEventRow(tx, communityId, id));
}

/**
 * `POST /calendar_events`: checks the body and every reference, announces the event in the asked
 * chat channels (a channel that fails is reported, not fatal), then writes the event in one
 * transaction of the write path.
 */
export async function createCalendarEvent(deps: EventWriteDeps, communityId: string, body: CreateEventBody): Promise<WrittenEvent> {
  const id = randomAlphanumericId(12);
  const { db } = deps.database;
  const channels = body.publish_to_chat_channels ?? [];
  // Checked before announcing, so that an event the transaction would refuse is never announced.
  // Without channels the transaction's own check is the only one needed (one statement less).
  const announced =
    channels.length === 0
      ? noAnnouncement
      : await announceEvent(
          deps,
          communityId,
          channels,
          [],
          parseAsApi(await applyBody(db, communityId, id, { status: 'published' }, body)),
        );
  const written = await writeCommunityData(deps, communityId, async (w) => {
    // Again inside the transaction, so that references and the slug are checked against what commits.
    const parsed = await withCoverImage(
      w.tx,
      communityId,
      parseAsApi(await applyBody(w.tx, communityId, id, { status: 'published' }, body)),
      deps.publicBaseUrl(),
    );
    const { row, children } = rowsOf(communityId, parsed, announced.publishedTo, w.now, w.now);
    const inserted = { id, ...row, attendees_count: 0, created_at: w.now };
    await insertEventRow(w.tx, { community_id: communityId, ...inserted });
    const stored: CalendarEventRow = inserted;
    await insertEventChildren(w.tx, children);
    w.touch('events');
    w.emit('calendar_event.created', () => renderOne(w.tx, communityId, id));
    return { stored, withoutPeople: children.people.length === 0 };
  });
  // Rendered from the row it wrote rather than read back: the answer is this request's event (a
  // later writer's change is not), and it saves a statement, two without hosts or speakers.
  const [event] = await renderCalendarEvents(db, communityId, [written.stored], { withoutPeople: written.withoutPeople });
  if (event === undefined) throw new Error(`event ${id} was written but could not be rendered`);
  return { id, event, ...announced.message };
}

const noAnnouncement: Announcement = { publishedTo: [], message: {} };

/** The announcement of an update in the chat channels it asks for (none asked: nothing read). */
async function announceUpdate(deps: EventWriteDeps, communityId: string, id: string, body: UpdateEventBody): Promise<Announcement> {
  const channels = body.publish_to_chat_channels ?? [];
  if (channels.length === 0) return noAnnouncement;
  const { db } = deps.database;
  const before = await storedRecord(db, communityId, id);
  if (!before) throw notFound('Calendar event');
  const draft = parseAsApi(await applyBody(db, communityId, id, before.record, body));
  return announceEvent(deps, communityId, channels, before.publishedTo, draft);
}

/** `PATCH /calendar_events/{id}`: the same fields, each optional; the event as it is afterwards. */
export async function updateCalendarEvent(
  deps: EventWriteDeps,
  communityId: string,
  id: string,
  body: UpdateEventBody,
): Promise<WrittenEvent> {
  const announced = await announceUpdate(deps, communityId, id, body);
  await writeCommunityData(deps, communityId, async (w) => {
    const stored = await storedRecord(w.tx, communityId, id);
    if (!stored) throw notFound('Calendar event');
    const parsed = await withCoverImage(
      w.tx,
      communityId,
      parseAsApi(await applyBody(w.tx, communityId, id, stored.record, body)),
      deps.publicBaseUrl(),
    );
    const known = new Set(stored.publishedTo.map((p) => p.chat_channel_id));
    const publishedTo = [...stored.publishedTo, ...announced.publishedTo.filter((p) => !known.has(p.chat_channel_id))];
    const { row, children } = rowsOf(communityId, parsed, publishedTo, stored.createdAt, w.now);
    await updateEventRow(w.tx, communityId, id, row);
    await deleteEventDescriptors(w.tx, communityId, id);
    await insertEventChildren(w.tx, children);
    w.touch('events');
    w.emit('calendar_event.updated', () => renderOne(w.tx, communityId, id));
  });
  return { id, event: await getCalendarEvent({ database: deps.database }, communityId, id), ...announced.message };
}
