import type { Tx } from '../../db/database.js';

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

/** Adds the attendee unless already there; true when a row was added. */
export async function insertAttendeeIfAbsent(
  tx: Tx,
  row: { community_id: string; event_id: string; profile_id: string; personal_join_link: string | null; now: number },
): Promise<boolean> {
  const { now, ...attendee } = row;
  const inserted = await tx
    .insertInto('calendar_event_attendees')
    .values({ ...attendee, created_at: now, updated_at: now })
    .onConflict((oc) => oc.columns(['community_id', 'event_id', 'profile_id']).doNothing())
    .returning('profile_id')
    .executeTakeFirst();
  return inserted !== undefined;
}

/** Sets an existing attendee's personal join link; false when it already was that link (nothing written). */
export async function updateAttendeeLink(
  tx: Tx,
  key: { communityId: string; eventId: string; profileId: string },
  link: string | null,
  now: number,
): Promise<boolean> {
  const result = await tx
    .updateTable('calendar_event_attendees')
    .set({ personal_join_link: link, updated_at: now })
    .where('community_id', '=', key.communityId)
    .where('event_id', '=', key.eventId)
    .where('profile_id', '=', key.profileId)
    .where('personal_join_link', 'is distinct from', link)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
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
