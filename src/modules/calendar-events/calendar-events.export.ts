import type { Selectable } from 'kysely';
import type { Db } from '../../db/database.js';
import { idChunks } from '../../db/ordered-rows.js';
import type { CalendarEventsTable } from '../../db/schema.js';
import { byteOrder, exportInstant, parseDoc } from '../../shared/export-records.js';
import { selectEventAttendees, selectEventPeopleIds } from './queries/children.js';

/** The stored columns a `calendar_events` record is built from. */
export type EventExportRow = Pick<
  Selectable<CalendarEventsTable>,
  'id' | 'status' | 'start_at' | 'end_at' | 'publish_to_site' | 'is_unlisted' | 'doc' | 'created_at' | 'updated_at'
>;

interface EventChildren {
  hosts: string[];
  speakers: string[];
  attendees: { profile_id: string; personal_join_link: string | null; created_at: string; updated_at: string }[];
}

/** Hosts and speakers in their stored order, and attendees in byte order of profile id, of a batch of events. */
async function eventChildren(tx: Db, communityId: string, ids: readonly string[]): Promise<Map<string, EventChildren>> {
  const children = new Map<string, EventChildren>(ids.map((id) => [id, { hosts: [], speakers: [], attendees: [] }]));
  for (const chunk of idChunks(ids)) {
    for (const [eventId, people] of await selectEventPeopleIds(tx, communityId, chunk)) {
      const own = children.get(eventId);
      own?.hosts.push(...people.hosts);
      own?.speakers.push(...people.speakers);
    }
    const attendees = await selectEventAttendees(tx, communityId, chunk);
    attendees.sort((a, b) => byteOrder(a.profile_id, b.profile_id));
    for (const a of attendees) {
      children.get(a.event_id)?.attendees.push({
        profile_id: a.profile_id,
        personal_join_link: a.personal_join_link,
        created_at: exportInstant(a.created_at),
        updated_at: exportInstant(a.updated_at),
      });
    }
  }
  return children;
}

/** The `calendar_events` records of a batch: columns, stored doc, hosts, speakers and attendees. */
export async function eventRecords(tx: Db, communityId: string, rows: readonly EventExportRow[]): Promise<Record<string, unknown>[]> {
  const children = await eventChildren(
    tx,
    communityId,
    rows.map((row) => row.id),
  );
  return rows.map((row) => {
    const own = children.get(row.id);
    return {
      id: row.id,
      status: row.status,
      start_date: exportInstant(row.start_at),
      end_date: row.end_at === null ? null : exportInstant(row.end_at),
      created_at: exportInstant(row.created_at),
      updated_at: exportInstant(row.updated_at),
      is_unlisted: Number(row.is_unlisted) === 1,
      publish_to_site: Number(row.publish_to_site) === 1,
      ...parseDoc(row.doc),
      host_profile_ids: own?.hosts ?? [],
      speaker_profile_ids: own?.speakers ?? [],
      attendees: own?.attendees ?? [],
    };
  });
}
