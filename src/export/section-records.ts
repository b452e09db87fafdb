import type { Selectable } from 'kysely';
import type { Db } from '../db/database.js';
import { idChunks } from '../db/ordered-rows.js';
import type { AwardsTable, CalendarEventsTable, FeedsTable, GroupsTable, MembersTable, PostsTable, ProfilesTable } from '../db/schema.js';
import { selectAssignmentsOfAwards } from '../modules/awards/awards.queries.js';
import { selectEventAttendees, selectEventPeopleIds } from '../modules/calendar-events/queries/children.js';
import { selectGroupMemberProfileIds } from '../modules/groups/groups.queries.js';
import type { EpochMicros } from '../shared/time.js';
import { formatJsonTimestamp } from '../shared/timestamps.js';

/*
 * Stored rows → records of the import file. Every record is built from what is stored, never
 * from an API answer: derived fields (hosts, author, references, counts) are left to the import,
 * which computes them again. Fields that live in a record's `doc` JSON are copied as they are, so a
 * field added to a doc (and to its import schema) travels without a change here.
 */

/** A stored instant (epoch µs) as the import file spells it: PostgreSQL's JSON spelling, to the microsecond. */
export const exportInstant = (value: EpochMicros): string => formatJsonTimestamp(value);

/** A stored optional id ("" when there is none) as the import spells "none": null. */
const idOrNull = (value: unknown): unknown => (value === '' ? null : value);

const parseDoc = (doc: string): Record<string, unknown> => JSON.parse(doc) as Record<string, unknown>;

/** The stored columns this record is built from. */
export type ProfileExportRow = Pick<Selectable<ProfilesTable>, 'id' | 'doc'>;

/** A `profiles` record: the stored profile (which holds its own created_at). */
export function profileRecord(row: ProfileExportRow): Record<string, unknown> {
  const profile = parseDoc(row.doc);
  return { ...profile, chat_user_id: idOrNull(profile.chat_user_id) };
}

/** The stored columns this record is built from. */
export type MemberExportRow = Pick<
  Selectable<MembersTable>,
  'id' | 'email' | 'full_name' | 'preferred_name' | 'avatar_url_original' | 'chat_profile_id' | 'state' | 'created_at' | 'updated_at'
>;

/** A `members` record, with its state and both timestamps. */
export function memberRecord(row: MemberExportRow): Record<string, unknown> {
  return {
    id: row.id,
    email: row.email,
    full_name: row.full_name,
    preferred_name: row.preferred_name,
    avatar_url_original: row.avatar_url_original,
    chat_profile_id: row.chat_profile_id,
    state: row.state,
    created_at: exportInstant(row.created_at),
    updated_at: exportInstant(row.updated_at),
  };
}

/** The stored columns this record is built from. */
export type GroupExportRow = Pick<Selectable<GroupsTable>, 'id' | 'name' | 'created_at' | 'updated_at'>;

/** The `groups` records of a batch, each with its members' profile ids in byte order. */
export async function groupRecords(tx: Db, communityId: string, rows: readonly GroupExportRow[]): Promise<Record<string, unknown>[]> {
  const members = await selectGroupMemberProfileIds(
    tx,
    communityId,
    rows.map((row) => row.id),
  );
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    member_profile_ids: (members.get(row.id) ?? []).sort(byteOrder),
    created_at: exportInstant(row.created_at),
    updated_at: exportInstant(row.updated_at),
  }));
}

/** The stored columns this record is built from. */
export type FeedExportRow = Pick<Selectable<FeedsTable>, 'id' | 'is_archived' | 'is_unlisted' | 'doc' | 'created_at' | 'updated_at'>;

/** A `feeds` record: the columns and the stored doc. */
export function feedRecord(row: FeedExportRow): Record<string, unknown> {
  return {
    id: row.id,
    created_at: exportInstant(row.created_at),
    updated_at: exportInstant(row.updated_at),
    is_archived: Number(row.is_archived) === 1,
    is_unlisted: Number(row.is_unlisted) === 1,
    ...parseDoc(row.doc),
  };
}

/** The stored columns this record is built from. */
export type PostExportRow = Pick<
  Selectable<PostsTable>,
  'id' | 'feed_id' | 'author_profile_id' | 'content_created_at' | 'latest_activity_at' | 'doc' | 'created_at' | 'updated_at'
>;

/**
 * A `posts` record: the columns and the stored doc, derived bodies included (the import keeps a
 * body it is given, so the rendering at the time of the first import is what travels).
 */
export function postRecord(row: PostExportRow): Record<string, unknown> {
  const doc = parseDoc(row.doc);
  const message = doc.chat_message as Record<string, unknown> | undefined;
  return {
    id: row.id,
    feed_id: row.feed_id,
    author_profile_id: row.author_profile_id,
    created_at: exportInstant(row.created_at),
    updated_at: exportInstant(row.updated_at),
    content_created_at: exportInstant(row.content_created_at),
    latest_activity_at: exportInstant(row.latest_activity_at),
    ...doc,
    ...(message === undefined
      ? {}
      : { chat_message: { ...message, id: idOrNull(message.id), parent_chat_message_id: idOrNull(message.parent_chat_message_id) } }),
  };
}

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

/** Byte order of UTF-16 strings that hold ASCII ids (what both engines' id order gives). */
export const byteOrder = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The stored columns an `awards` record is built from. */
export type AwardExportRow = Pick<Selectable<AwardsTable>, 'id' | 'name' | 'description' | 'emoji' | 'created_at' | 'updated_at'>;

/** The `awards` records of a batch, each with its holders in byte order of profile id. */
export async function awardRecords(tx: Db, communityId: string, rows: readonly AwardExportRow[]): Promise<Record<string, unknown>[]> {
  const holders = new Map<string, Record<string, unknown>[]>();
  for (const ids of idChunks(rows.map((row) => row.id))) {
    const found = await selectAssignmentsOfAwards(tx, communityId, ids);
    for (const row of found) {
      const list = holders.get(row.award_id) ?? [];
      list.push({
        profile_id: row.profile_id,
        sender_profile_id: row.sender_profile_id,
        send_anonymously: Number(row.send_anonymously) === 1,
        assigned_at: exportInstant(row.assigned_at),
      });
      holders.set(row.award_id, list);
    }
  }
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    description: row.description,
    emoji: row.emoji,
    created_at: exportInstant(row.created_at),
    updated_at: exportInstant(row.updated_at),
    assignments: (holders.get(row.id) ?? []).sort((a, b) => byteOrder(String(a.profile_id), String(b.profile_id))),
  }));
}
