import { createHash } from 'node:crypto';
import type { Insertable } from 'kysely';
import type { Tx } from '../../../db/database.js';
import type { CalendarEventsTable } from '../../../db/schema.js';
import { duplicateIdFailure } from '../../../import/import-section.js';
import { type Failure, Refused, refuse } from '../../../shared/failures.js';
import { type EpochMicros, epochMicros } from '../../../shared/time.js';
import type { TxContext } from '../../../write-path/command-context.js';
import { selectExistingFeedIds } from '../../feeds/feeds.queries.js';
import { selectExistingProfileIds } from '../../profiles/profiles.queries.js';
import { deleteEventChildren, type EventChildRows, insertEventChildren } from '../queries/children.js';
import { idsPerLookup, type StoredEventState, selectStoredEventStates, upsertEventRows } from '../queries/events.js';
import { docOf, type ParsedEvent } from '../rules/event-record.js';
import { resolveCoverImages } from './references.js';

/** Events written per round (one upsert, one read of stored state, one replacement of children). */
const eventsPerBatch = 500;

/** Refuses the first reference to a profile or feed the community does not have, naming where it is. */
async function checkReferences(tx: Tx, communityId: string, records: readonly ParsedEvent[]): Promise<void> {
  const profiles = await selectExistingProfileIds(
    tx,
    communityId,
    records.flatMap((r) => [...r.hostIds, ...r.speakerIds, ...r.attendees.map((a) => a.profileId)]),
  );
  const feeds = await selectExistingFeedIds(
    tx,
    communityId,
    records.flatMap((r) => r.feedIds),
  );
  records.forEach((record, index) => {
    // A null id (a published_to channel bound to no feed) refers to nothing and is not checked.
    const checks: { ids: readonly (string | null)[]; known: Set<string>; noun: string; path: (j: number) => Failure['path'] }[] = [
      { ids: record.hostIds, known: profiles, noun: 'profile', path: (j) => [index, 'host_profile_ids', j] },
      { ids: record.speakerIds, known: profiles, noun: 'profile', path: (j) => [index, 'speaker_profile_ids', j] },
      {
        ids: record.attendees.map((a) => a.profileId),
        known: profiles,
        noun: 'profile',
        path: (j) => [index, 'attendees', j, 'profile_id'],
      },
      {
        ids: record.doc.published_to.map((p) => p.feed_id),
        known: feeds,
        noun: 'feed',
        path: (j) => [index, 'published_to', j, 'feed_id'],
      },
    ];
    for (const { ids, known, noun, path } of checks) {
      const j = ids.findIndex((id) => id !== null && !known.has(id));
      if (j >= 0) throw refuse(path(j), 'unknown_reference', `no ${noun} "${ids[j]}" in this community`);
    }
  });
}

/** Timestamps of a stored event and a digest of everything updated_at speaks for. */
interface StoredStamp {
  fingerprint: string;
  created_at: EpochMicros;
  updated_at: EpochMicros;
}

/** A digest of an event's stored fields and its hosts and speakers (not its attendees). */
function fingerprintOf(state: Omit<StoredEventState, 'created_at' | 'updated_at'>): string {
  const { doc, status, start_at, end_at, publish_to_site, is_unlisted, people } = state;
  const values = [
    doc,
    status,
    Number(start_at),
    end_at === null ? null : Number(end_at),
    Number(publish_to_site),
    Number(is_unlisted),
    people,
  ];
  return createHash('sha256').update(JSON.stringify(values)).digest('base64');
}

/**
 * The stamps of the events of the file that already exist, all read before anything is written:
 * PostgreSQL has no statistics for rows this transaction adds, so lookups interleaved with the
 * inserts would turn into scans of the whole community, once per batch.
 */
async function storedStamps(tx: Tx, communityId: string, ids: readonly string[]): Promise<Map<string, StoredStamp>> {
  const stamps = new Map<string, StoredStamp>();
  for (let i = 0; i < ids.length; i += idsPerLookup) {
    const states = await selectStoredEventStates(tx, communityId, ids.slice(i, i + idsPerLookup));
    for (const [id, state] of states)
      stamps.set(id, {
        fingerprint: fingerprintOf(state),
        created_at: state.created_at,
        updated_at: state.updated_at,
      });
  }
  return stamps;
}

/**
 * Appends an event's child rows (plain literals: this runs for every row of large imports);
 * `updatedAt` is the event's updated_at as written, which its tag rows keep.
 */
function addChildRows(children: EventChildRows, community_id: string, record: ParsedEvent, updatedAt: EpochMicros, now: EpochMicros): void {
  const event_id = record.id;
  for (const tag of record.tags) children.tags.push({ community_id, event_id, tag_id: tag.id, event_updated_at: updatedAt });
  for (const feed_id of record.feedIds) children.feeds.push({ community_id, event_id, feed_id });
  record.hostIds.forEach((profile_id, position) => {
    children.people.push({ community_id, event_id, role: 'host', position, profile_id });
  });
  record.speakerIds.forEach((profile_id, position) => {
    children.people.push({ community_id, event_id, role: 'speaker', position, profile_id });
  });
  for (const a of record.attendees) {
    children.attendees.push({
      community_id,
      event_id,
      profile_id: a.profileId,
      personal_join_link: a.link,
      created_at: a.created_at ?? now,
      updated_at: a.updated_at ?? now,
    });
  }
}

/** The rows of one batch: events with settled timestamps, and their new child rows. */
function rowsOfBatch(communityId: string, batch: readonly ParsedEvent[], stored: ReadonlyMap<string, StoredStamp>, now: EpochMicros) {
  const children: EventChildRows = { tags: [], feeds: [], people: [], attendees: [] };
  const events = batch.map((record): Insertable<CalendarEventsTable> => {
    const before = stored.get(record.id);
    const created_at = record.given.created_at ?? before?.created_at ?? now;
    const doc = JSON.stringify(docOf(record, created_at));
    const people = [...record.hostIds.map((id) => `host:${id}`), ...record.speakerIds.map((id) => `speaker:${id}`)];
    // Re-importing the same file must change nothing: updated_at moves only when the event did.
    const unchanged = before !== undefined && before.fingerprint === fingerprintOf({ ...record, doc, people });
    const updated_at = record.given.updated_at ?? (unchanged ? before.updated_at : epochMicros(Math.max(now, created_at)));
    addChildRows(children, communityId, record, updated_at, now);
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
 * Upserts a batch of checked event records (the import's `calendar_events`) by id: an event's tags,
 * feeds, hosts, speakers and attendees are replaced by the record's; every profile and feed it
 * names must exist. Refused when one does not (or an id appears twice): each failure's path starts
 * with the record's index. Runs in the write of the caller (the import's one transaction); returns
 * how many events it wrote.
 */
export async function importEvents(ctx: TxContext & { readonly publicBaseUrl: string }, records: readonly ParsedEvent[]): Promise<number> {
  const { tx, communityId, now, publicBaseUrl } = ctx;
  const duplicate = duplicateIdFailure(records, (record) => record.id);
  if (duplicate) throw new Refused([duplicate]);
  await checkReferences(tx, communityId, records);
  await resolveCoverImages(tx, communityId, records, publicBaseUrl);
  const stored = await storedStamps(
    tx,
    communityId,
    records.map((r) => r.id),
  );
  for (let i = 0; i < records.length; i += eventsPerBatch) {
    const batch = records.slice(i, i + eventsPerBatch);
    const { events, children } = rowsOfBatch(communityId, batch, stored, now);
    await upsertEventRows(tx, events);
    // New events have no child rows to replace.
    await deleteEventChildren(
      tx,
      communityId,
      batch.filter((r) => stored.has(r.id)).map((r) => r.id),
    );
    await insertEventChildren(tx, children);
  }
  return records.length;
}
