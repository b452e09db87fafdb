import type { Db, Tx } from '../../../db/database.js';
import { notFound } from '../../../errors.js';
import { changedFields } from '../../../shared/activity.js';
import { randomAlphanumericId } from '../../../shared/ids.js';
import type { JsonText } from '../../../shared/json-text.js';
import type { ServiceDeps } from '../../../shared/service-deps.js';
import type { EpochMicros } from '../../../shared/time.js';
import { formatJsonTimestamp } from '../../../shared/timestamps.js';
import type { CommandContext } from '../../../write-path/command-context.js';
import { writeCommunityData } from '../../../write-path/write-community-data.js';
import { eventWebhookData, getCalendarEvent, renderCalendarEvents } from '../calendar-events.reads.js';
import type { CalendarEventDoc, CalendarEventRow } from '../calendar-events.records.js';
import { deleteEventChildren, deleteEventDescriptors, insertEventChildren, selectEventPeopleIds } from '../queries/children.js';
import { deleteEventRow, insertEventRow, selectCalendarEventRow, updateEventRow } from '../queries/events.js';
import { type EventBody, type EventRecord, recordWithBody } from '../rules/event-body.js';
import { docOf, type ParsedEvent, parseEventRecord } from '../rules/event-record.js';
import type { CreateEventBody, UpdateEventBody } from '../schemas/bodies.js';
import type { PublishedTo } from '../schemas/event.js';
import { type Announcement, announceEvent, noAnnouncement } from './announce.js';
import { resolveCoverImage, resolvePeople, resolveTags, settleSlug } from './references.js';

/*
 * The changes of an event: createEvent, updateEvent, deleteEvent (attendees: ./attendees.ts; the
 * import's batch: ./import-events.ts). Each runs in one transaction of the write path and refuses
 * its input with Refused, whose failures name the fields of the event record (the import's names:
 * `host_profile_ids[1]`); the API renders them in its own (`body.hosts[1]`).
 */

/** What the calendar event commands and reads need: the services, and the base of uploaded files' URLs (a cover_image_file_id). */
export type CalendarEventDeps = ServiceDeps & { publicBaseUrl: () => string };

/** What the event commands are given (src/write-path/command-context.ts). */
export type CalendarEventContext = CommandContext<CalendarEventDeps>;

/** The event as GET shows it (JSON text) and, when some channel could not be posted to, why. */
export interface WrittenEvent {
  id: string;
  event: string;
  message?: string;
}

const eventNotFound = () => notFound('Calendar event');

/** An event's stored state as an event record, so that a PATCH goes through the same rules as the import. */
async function storedRecord(
  db: Db | Tx,
  communityId: string,
  id: string,
): Promise<{ record: EventRecord; publishedTo: PublishedTo[]; createdAt: EpochMicros } | null> {
  const row = await selectCalendarEventRow(db, communityId, id);
  if (!row) return null;
  const { published_to, tags, ...doc } = JSON.parse(row.doc) as CalendarEventDoc;
  const people = (await selectEventPeopleIds(db, communityId, [id])).get(id);
  return {
    record: {
      ...doc,
      id,
      status: row.status,
      start_date: formatJsonTimestamp(row.start_at),
      end_date: row.end_at === null ? null : formatJsonTimestamp(row.end_at),
      is_unlisted: row.is_unlisted === 1,
      publish_to_site: row.publish_to_site === 1,
      tags,
      host_profile_ids: people?.hosts ?? [],
      speaker_profile_ids: people?.speakers ?? [],
    },
    publishedTo: published_to,
    createdAt: row.created_at,
  };
}

/** The checked event of `base` with the body applied (absent: unchanged; null: cleared), its references resolved. */
async function eventWithBody(db: Db | Tx, communityId: string, id: string, base: EventRecord, body: EventBody): Promise<ParsedEvent> {
  const record = recordWithBody(base, id, body);
  if (body.hosts !== undefined) record.host_profile_ids = await resolvePeople(db, communityId, body.hosts, 'host_profile_ids');
  if (body.speakers !== undefined) record.speaker_profile_ids = await resolvePeople(db, communityId, body.speakers, 'speaker_profile_ids');
  if (body.tags !== undefined) record.tags = await resolveTags(db, communityId, body.tags);
  // A new event gets a slug from its title; a stored event keeps its slug unless the body sets one.
  const keepSlug = body.slug === undefined && Object.hasOwn(base, 'slug');
  if (!keepSlug) record.slug = await settleSlug(db, communityId, id, body.slug, String(record.title ?? ''));
  // published_to is the command's own (its feed may be null); the rules see none.
  record.published_to = [];
  return parseEventRecord(record);
}

/** The fields an update changed, before and after, in the stored record's shape (the activity log's `changes`). */
function eventChanges(before: EventRecord, parsed: ParsedEvent, createdAt: EpochMicros) {
  const { published_to: _publishedTo, tags, ...doc } = docOf(parsed, createdAt);
  const after: Record<string, unknown> = {
    ...doc,
    id: parsed.id,
    status: parsed.status,
    start_date: formatJsonTimestamp(parsed.start_at),
    end_date: parsed.end_at === null ? null : formatJsonTimestamp(parsed.end_at),
    is_unlisted: parsed.is_unlisted === 1,
    publish_to_site: parsed.publish_to_site === 1,
    tags,
    host_profile_ids: parsed.hostIds,
    speaker_profile_ids: parsed.speakerIds,
  };
  return changedFields(before, after, [...new Set([...Object.keys(before), ...Object.keys(after)])]);
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
 * Creates an event: checks the body and every reference, announces the event in the asked chat
 * channels (a channel that fails is reported, not fatal), then writes the event in one
 * transaction of the write path.
 */
export async function createEvent(ctx: CalendarEventContext, body: CreateEventBody): Promise<WrittenEvent> {
  const { communityId } = ctx;
  const id = randomAlphanumericId(12);
  const { db } = ctx.database;
  const channels = body.publish_to_chat_channels ?? [];
  // Checked before announcing, so that an event the transaction would refuse is never announced.
  // Without channels the transaction's own check is the only one needed (one statement less).
  const announced =
    channels.length === 0
      ? noAnnouncement
      : await announceEvent(ctx, {
          channelIds: channels,
          already: [],
          event: await eventWithBody(db, communityId, id, { status: 'published' }, body),
        });
  const written = await writeCommunityData(ctx, communityId, async (w) => {
    // Again inside the transaction, so that references and the slug are checked against what commits.
    const parsed = await eventWithBody(w.tx, communityId, id, { status: 'published' }, body);
    await resolveCoverImage(w.tx, communityId, parsed, ctx.publicBaseUrl());
    const { row, children } = rowsOf(communityId, parsed, announced.publishedTo, w.now, w.now);
    const inserted = { id, ...row, attendees_count: 0, created_at: w.now };
    await insertEventRow(w.tx, { community_id: communityId, ...inserted });
    const stored: CalendarEventRow = inserted;
    await insertEventChildren(w.tx, children);
    w.touch('events');
    w.emit('calendar_event.created', () => renderOne(w.tx, communityId, id));
    w.record({ action: 'calendar_event.created', target: { type: 'calendar_event', id, name: parsed.doc.title } });
    return { stored, withoutPeople: children.people.length === 0 };
  });
  // Rendered from the row it wrote rather than read back: the answer is this request's event (a
  // later writer's change is not), and it saves a statement, two without hosts or speakers.
  const [event] = await renderCalendarEvents(db, communityId, [written.stored], { withoutPeople: written.withoutPeople });
  if (event === undefined) throw new Error(`event ${id} was written but could not be rendered`);
  return { id, event, ...announced.message };
}

/** The announcement of an update in the chat channels it asks for (none asked: nothing read). */
async function announceUpdate(ctx: CalendarEventContext, id: string, body: UpdateEventBody): Promise<Announcement> {
  const channels = body.publish_to_chat_channels ?? [];
  if (channels.length === 0) return noAnnouncement;
  const { communityId } = ctx;
  const { db } = ctx.database;
  const before = await storedRecord(db, communityId, id);
  if (!before) throw eventNotFound();
  const draft = await eventWithBody(db, communityId, id, before.record, body);
  return announceEvent(ctx, { channelIds: channels, already: before.publishedTo, event: draft });
}

/** Updates the event `id` with the body's fields (each optional); answers the event as it is afterwards. */
export async function updateEvent(ctx: CalendarEventContext, { id, body }: { id: string; body: UpdateEventBody }): Promise<WrittenEvent> {
  const { communityId } = ctx;
  const announced = await announceUpdate(ctx, id, body);
  await writeCommunityData(ctx, communityId, async (w) => {
    const stored = await storedRecord(w.tx, communityId, id);
    if (!stored) throw eventNotFound();
    const parsed = await eventWithBody(w.tx, communityId, id, stored.record, body);
    await resolveCoverImage(w.tx, communityId, parsed, ctx.publicBaseUrl());
    const known = new Set(stored.publishedTo.map((p) => p.chat_channel_id));
    const publishedTo = [...stored.publishedTo, ...announced.publishedTo.filter((p) => !known.has(p.chat_channel_id))];
    const { row, children } = rowsOf(communityId, parsed, publishedTo, stored.createdAt, w.now);
    await updateEventRow(w.tx, communityId, id, row);
    await deleteEventDescriptors(w.tx, communityId, id);
    await insertEventChildren(w.tx, children);
    w.touch('events');
    w.emit('calendar_event.updated', () => renderOne(w.tx, communityId, id));
    w.record({
      action: 'calendar_event.updated',
      target: { type: 'calendar_event', id, name: parsed.doc.title },
      changes: eventChanges(stored.record, parsed, stored.createdAt),
    });
  });
  return { id, event: await getCalendarEvent({ database: ctx.database }, communityId, id), ...announced.message };
}

/** Deletes an event and its child rows in one transaction; 404 when there is none. */
export async function deleteEvent(ctx: CommandContext, id: string): Promise<{ id: string }> {
  const { communityId } = ctx;
  await writeCommunityData(ctx, communityId, async (w) => {
    // Rendered before the delete (afterwards there is nothing left to show), and only for a subscriber.
    const deleted = (await w.wanted('calendar_event.deleted'))
      ? await eventWebhookData(w.tx, communityId, await selectCalendarEventRow(w.tx, communityId, id))
      : undefined;
    const gone = await deleteEventRow(w.tx, communityId, id);
    if (!gone) throw eventNotFound();
    if (deleted) w.emit('calendar_event.deleted', () => deleted);
    w.record({ action: 'calendar_event.deleted', target: { type: 'calendar_event', id, name: gone.title } });
    await deleteEventChildren(w.tx, communityId, [id]);
    w.touch('events');
  });
  return { id };
}
