import type { Tx } from '../../db/database.js';
import { preparedWrite } from '../../db/prepared-query.js';
import type { EpochMicros } from '../../shared/time.js';

/** Tables holding an event's child rows, keyed by (community_id, event_id, ...). */
export const eventChildTables = [
  'calendar_event_tags',
  'calendar_event_feeds',
  'calendar_event_people',
  'calendar_event_attendees',
] as const;

/** Deletes the child rows (tags, feeds, people, attendees) of the given events. */
export async function deleteEventChildren(tx: Tx, communityId: string, eventIds: readonly string[]): Promise<void> {
  if (eventIds.length === 0) return;
  for (const table of eventChildTables) {
    await tx.deleteFrom(table).where('community_id', '=', communityId).where('event_id', 'in', eventIds).execute();
  }
}

/** Deletes an event row; false when the community has no such event. Call inside a transaction. */
export async function deleteEventRow(tx: Tx, communityId: string, id: string): Promise<boolean> {
  const result = await tx.deleteFrom('calendar_events').where('community_id', '=', communityId).where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

// The attendee update's writes are compiled once (preparedWrite): it is the registrations' hot path
// (the API and the chat sync), and a Kysely builder per call costs more than SQLite's statement.
const insertAttendee = preparedWrite(
  (tx: Tx, p: { community_id: string; event_id: string; profile_id: string; personal_join_link: string | null; now: EpochMicros }) =>
    tx
      .insertInto('calendar_event_attendees')
      .values({
        community_id: p.community_id,
        event_id: p.event_id,
        profile_id: p.profile_id,
        personal_join_link: p.personal_join_link,
        created_at: p.now,
        updated_at: p.now,
      })
      .onConflict((oc) => oc.columns(['community_id', 'event_id', 'profile_id']).doNothing()),
);

/** Adds the attendee unless already there; true when a row was added. */
export async function insertAttendeeIfAbsent(
  tx: Tx,
  row: { community_id: string; event_id: string; profile_id: string; personal_join_link: string | null; now: EpochMicros },
): Promise<boolean> {
  return (await insertAttendee.execute(tx, row)) > 0;
}

const updateLink = preparedWrite(
  (tx: Tx, p: { communityId: string; eventId: string; profileId: string; link: string | null; now: EpochMicros }) =>
    tx
      .updateTable('calendar_event_attendees')
      .set({ personal_join_link: p.link, updated_at: p.now })
      .where('community_id', '=', p.communityId)
      .where('event_id', '=', p.eventId)
      .where('profile_id', '=', p.profileId)
      .where('personal_join_link', 'is distinct from', p.link),
);

/** Sets an existing attendee's personal join link; false when it already was that link (nothing written). */
export async function updateAttendeeLink(
  tx: Tx,
  key: { communityId: string; eventId: string; profileId: string },
  link: string | null,
  now: EpochMicros,
): Promise<boolean> {
  return (await updateLink.execute(tx, { ...key, link, now })) > 0;
}

/** Adds one to an event's attendees_count; false when the event is gone. */
export async function incrementAttendeesCount(tx: Tx, communityId: string, eventId: string): Promise<boolean> {
  const result = await tx
    .updateTable('calendar_events')
    .set((eb) => ({ attendees_count: eb('attendees_count', '+', 1) }))
    .where('community_id', '=', communityId)
    .where('id', '=', eventId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
