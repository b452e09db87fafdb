import type { Insertable } from 'kysely';
import type { Tx } from '../../db/database.js';
import type { CalendarEventsTable } from '../../db/schema.js';
import { assertUniqueIds, ImportError, type ImportSection } from '../../import/import-section.js';
import { toIso } from '../../shared/clock.js';
import { selectExistingProfileIds } from '../profiles/profiles.queries.js';
import {
  type EventChildRows,
  insertEventChildren,
  selectExistingFeedIds,
  selectStoredEventStates,
  upsertEventRows,
} from './calendar-events.import-queries.js';
import { type ParsedEvent, parseEventRecord, section } from './calendar-events.import-parse.js';
import { deleteEventChildren } from './calendar-events.mutations.js';
import type { CalendarEventDoc } from './calendar-events.records.js';

/** Events written per round (one upsert, one read of stored state, one replacement of children). */
const eventsPerBatch = 500;

/** Refuses the first reference to a profile or feed the community does not have, naming where it is. */
async function assertReferencesExist(tx: Tx, communityId: string, records: readonly ParsedEvent[]): Promise<void> {
  const profiles = await selectExistingProfileIds(
    tx,
    communityId,
    records.flatMap((r) => [...r.hostIds, ...r.speakerIds, ...r.attendees.map((a) => a.profileId)]),
  );
  const feeds = await selectExistingFeedIds(tx, communityId, records.flatMap((r) => r.feedIds));
  records.forEach((record, index) => {
    const missing = (ids: readonly string[], known: Set<string>) => ids.findIndex((id) => !known.has(id));
    const checks: [string, readonly string[], Set<string>, string][] = [
      ['host_profile_ids', record.hostIds, profiles, 'profile'],
      ['speaker_profile_ids', record.speakerIds, profiles, 'profile'],
      ['attendees', record.attendees.map((a) => a.profileId), profiles, 'profile'],
      ['published_to', record.doc.published_to.map((p) => p.feed_id), feeds, 'feed'],
    ];
    for (const [field, ids, known, noun] of checks) {
      const j = missing(ids, known);
      if (j < 0) continue;
      const path = field === 'attendees' ? `attendees[${j}].profile_id` : field === 'published_to' ? `published_to[${j}].feed_id` : `${field}[${j}]`;
      throw new ImportError(section, index, path, `no ${noun} "${ids[j]}" in this community`);
    }
  });
}

/** The stored doc of a parsed event; tags without created_at take the event's. */
function docOf(record: ParsedEvent, createdAt: number): CalendarEventDoc {
  const tags = record.tags.map((tag) => ({ ...tag, created_at: toIso(tag.created_at ?? createdAt) }));
  return { ...record.doc, tags };
}

/** The rows of one batch: events with settled timestamps, and their new child rows. */
async function rowsOfBatch(tx: Tx, communityId: string, batch: readonly ParsedEvent[], now: number) {
  const stored = await selectStoredEventStates(tx, communityId, batch.map((r) => r.id));
  const children: EventChildRows = { tags: [], feeds: [], people: [], attendees: [] };
  const events = batch.map((record): Insertable<CalendarEventsTable> => {
    const before = stored.get(record.id);
    const created_at = record.given.created_at ?? before?.created_at ?? now;
    const doc = JSON.stringify(docOf(record, created_at));
    const people = [...record.hostIds.map((id) => `host:${id}`), ...record.speakerIds.map((id) => `speaker:${id}`)];
    // Re-importing the same file must change nothing: updated_at moves only when the event did.
    const unchanged =
      before !== undefined &&
      before.doc === doc &&
      before.status === record.status &&
      Number(before.start_at) === record.start_at &&
      (before.end_at === null ? null : Number(before.end_at)) === record.end_at &&
      before.publish_to_site === record.publish_to_site &&
      before.is_unlisted === record.is_unlisted &&
      before.people.join(',') === people.join(',');
    const updated_at = record.given.updated_at ?? (unchanged ? before.updated_at : Math.max(now, created_at));
    const key = { community_id: communityId, event_id: record.id };
    children.tags.push(...record.tags.map((tag) => ({ ...key, tag_id: tag.id })));
    children.feeds.push(...record.feedIds.map((feed_id) => ({ ...key, feed_id })));
    children.people.push(...record.hostIds.map((profile_id, position) => ({ ...key, role: 'host' as const, position, profile_id })));
    children.people.push(...record.speakerIds.map((profile_id, position) => ({ ...key, role: 'speaker' as const, position, profile_id })));
    children.attendees.push(
      ...record.attendees.map((a) => ({ ...key, profile_id: a.profileId, personal_join_link: a.link, created_at: now, updated_at: now })),
    );
    return {
      community_id: communityId,
      id: record.id,
      status: record.status,
      start_at: record.start_at,
      end_at: record.end_at,
      ends_at: record.end_at ?? record.start_at,
      publish_to_site: record.publish_to_site,
      is_unlisted: record.is_unlisted,
      attendees_count: record.attendees.length,
      doc,
      mentions: record.mentions,
      created_at,
      updated_at,
    };
  });
  return { events, children };
}

/**
 * The `calendar_events` section: upsert by id, an event's tags, feeds, hosts, speakers and
 * attendees replaced by the file's; every profile and feed it names must exist (earlier
 * sections of the same file count).
 */
export const calendarEventsImportSection: ImportSection<ParsedEvent> = {
  name: section,
  parse: parseEventRecord,
  async apply(tx, records, context) {
    assertUniqueIds(section, records, (record) => record.id);
    await assertReferencesExist(tx, context.communityId, records);
    for (let i = 0; i < records.length; i += eventsPerBatch) {
      const batch = records.slice(i, i + eventsPerBatch);
      const { events, children } = await rowsOfBatch(tx, context.communityId, batch, context.now);
      await upsertEventRows(tx, events);
      await deleteEventChildren(tx, context.communityId, batch.map((r) => r.id));
      await insertEventChildren(tx, children);
    }
    return records.length;
  },
};
