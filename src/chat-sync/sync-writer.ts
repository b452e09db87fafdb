import type { Tx } from '../db/database.js';
import type { ImportContext } from '../import/import-section.js';
import { feedsImportSection } from '../modules/feeds/feeds.import.js';
import { type FeedRow, feedSummaryOf, selectFeedRows } from '../modules/feeds/feeds.queries.js';
import type { FeedDoc } from '../modules/feeds/feeds.schemas.js';
import { toMember } from '../modules/members/members.queries.js';
import { postsImportSection } from '../modules/posts/posts.import.js';
import { deletePostRow, type PostRow, selectPostRows } from '../modules/posts/posts.queries.js';
import { renderPost } from '../modules/posts/posts.records.js';
import type { PostDoc, PostImport } from '../modules/posts/posts.schemas.js';
import { profilesImportSection } from '../modules/profiles/profiles.import.js';
import { selectProfileJsonByIds, selectProfilesByChatUserIds } from '../modules/profiles/profiles.queries.js';
import { type ProfileImport, profileFromImport } from '../modules/profiles/profiles.schemas.js';
import { resolveReferences } from '../references/resolve-references.js';
import type { Mentions } from '../rich-text/index.js';
import { normaliseEmail } from '../shared/ids.js';
import type { EpochMicros } from '../shared/time.js';
import { formatJsonTimestamp } from '../shared/timestamps.js';
import type { CommunityWrite } from '../write-path/write-community-data.js';
import { profileRecordOf, type SlackObject, stableUuid } from './slack-records.js';

/*
 * Writes of synced Slack data, always inside writeCommunityData and always through the import's
 * section functions (parse, then apply), so that a synced record is checked, derived and stored
 * exactly as an imported one. Each function writes only what changed, touches the views it
 * changed and emits the webhook events of the change.
 */

const contextOf = (w: CommunityWrite): ImportContext => ({ communityId: w.communityId, now: w.now });

/** Profile ids for Slack user ids: the one a profile already has (import, earlier sync), else a stable one. */
export async function profileIdsFor(tx: Tx, communityId: string, teamId: string, userIds: string[]): Promise<Map<string, string>> {
  const known = await selectProfilesByChatUserIds(tx, communityId, userIds);
  return new Map(userIds.map((id) => [id, known.get(id)?.profile_id ?? stableUuid('profile', teamId, id)]));
}

/** Upserts the profiles of Slack users (users.list page, user_change, team_join); returns how many changed. */
export async function writeProfiles(w: CommunityWrite, teamId: string, users: SlackObject[]): Promise<number> {
  const userIds = users.map((user) => String(user.id ?? '')).filter(Boolean);
  const ids = await profileIdsFor(w.tx, w.communityId, teamId, userIds);
  const stored = await selectProfileJsonByIds(w.tx, w.communityId, [...ids.values()]);
  const changed: ProfileImport[] = [];
  const deleted: string[] = [];
  const present: string[] = [];
  users.forEach((user, index) => {
    const profileId = ids.get(String(user.id ?? ''));
    if (profileId === undefined) return;
    let record = profileRecordOf(user, profileId);
    if (record.email) {
      try {
        record = profilesImportSection.parse(record, index);
      } catch {
        // An address the import would refuse is left out rather than losing the whole user.
        record = { ...record, email: null };
      }
    }
    (user.deleted === true ? deleted : present).push(profileId);
    const before = stored.get(profileId);
    const createdIso = before ? (JSON.parse(before) as { created_at: string }).created_at : formatJsonTimestamp(w.now);
    if (before !== JSON.stringify(profileFromImport(record, createdIso)))
      changed.push(before ? { ...record, created_at: createdIso } : record);
  });
  if (changed.length > 0) await profilesImportSection.apply(w.tx, changed, contextOf(w));
  let marked = 0;
  for (const [flag, list] of [
    [1, deleted],
    [0, present],
  ] as const) {
    if (list.length === 0) continue;
    marked += await markChatDeleted(w.tx, w.communityId, list, flag);
  }
  if (changed.length > 0) {
    // Hosts, speakers and post authors are profiles: both views show them.
    w.touch('events');
    w.touch('posts');
    await linkMembers(w, changed);
  }
  return changed.length + marked;
}

/** Sets the deleted mark of profiles where it differs; returns how many changed. */
async function markChatDeleted(tx: Tx, communityId: string, ids: string[], flag: 0 | 1): Promise<number> {
  const result = await tx
    .updateTable('profiles')
    .set({ chat_deleted: flag })
    .where('community_id', '=', communityId)
    .where('id', 'in', ids)
    .where('chat_deleted', '<>', flag)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

async function linkMember(tx: Tx, communityId: string, memberId: string, profileId: string, now: EpochMicros): Promise<void> {
  await tx
    .updateTable('members')
    .set({ chat_profile_id: profileId, updated_at: now })
    .where('community_id', '=', communityId)
    .where('id', '=', memberId)
    .execute();
}

/** Members rule: a member whose email has a profile with a chat identity is linked to it (when not linked yet). */
async function linkMembers(w: CommunityWrite, profiles: ProfileImport[]): Promise<void> {
  const byEmail = new Map(
    profiles.flatMap((p) =>
      typeof p.email === 'string' && p.email !== '' && p.chat_user_id ? [[normaliseEmail(p.email), p.profile_id]] : [],
    ),
  );
  if (byEmail.size === 0) return;
  const members = await w.tx
    .selectFrom('members')
    .selectAll()
    .where('community_id', '=', w.communityId)
    .where('email_norm', 'in', [...byEmail.keys()])
    .where('chat_profile_id', 'is', null)
    .execute();
  for (const member of members) {
    const profileId = byEmail.get(member.email_norm) as string;
    await linkMember(w.tx, w.communityId, member.id, profileId, w.now);
    w.emit('member.updated', () => toMember({ ...member, chat_profile_id: profileId, updated_at: w.now }));
  }
}

/** Applies channel fields to a bound feed through the feeds section; false when nothing changed. */
export async function writeFeedChannel(
  w: CommunityWrite,
  feed: FeedRow,
  fields: Partial<FeedDoc> & { is_archived?: boolean },
): Promise<boolean> {
  const { is_archived, ...docFields } = fields;
  const doc = { ...(JSON.parse(feed.doc) as FeedDoc), ...docFields };
  const archived = is_archived ?? feed.is_archived === 1;
  if (JSON.stringify(doc) === feed.doc && archived === (feed.is_archived === 1)) return false;
  const record = { ...doc, id: feed.id, is_archived: archived, is_unlisted: feed.is_unlisted === 1 };
  await feedsImportSection.apply(w.tx, [feedsImportSection.parse(record, 0)], contextOf(w));
  // Feed summaries and Home membership are part of post answers.
  w.touch('posts');
  return true;
}

const postChanged = (a: PostRow, b: PostRow): boolean =>
  a.doc !== b.doc ||
  a.latest_activity_at !== b.latest_activity_at ||
  a.content_created_at !== b.content_created_at ||
  a.feed_id !== b.feed_id ||
  a.author_profile_id !== b.author_profile_id;

/** Upserts posts through the posts section; returns how many were created and updated. */
export async function writePosts(w: CommunityWrite, records: PostImport[]): Promise<{ created: number; updated: number; skipped: number }> {
  const parsed: ReturnType<typeof postsImportSection.parse>[] = [];
  let skipped = 0;
  records.forEach((record, index) => {
    try {
      parsed.push(postsImportSection.parse(record, index));
    } catch {
      skipped++;
    }
  });
  if (parsed.length === 0) return { created: 0, updated: 0, skipped };
  const ids = parsed.map((post) => post.record.id);
  const before = await selectPostRows(w.tx, w.communityId, ids);
  await postsImportSection.apply(w.tx, parsed, contextOf(w));
  const after = await selectPostRows(w.tx, w.communityId, ids);
  let created = 0;
  let updated = 0;
  for (const id of ids) {
    const now = after.get(id);
    const was = before.get(id);
    if (!now) continue;
    if (!was) {
      created++;
      w.emit('post.created', () => renderPostObject(w.tx, w.communityId, id));
    } else if (postChanged(was, now)) {
      updated++;
      w.emit('post.updated', () => renderPostObject(w.tx, w.communityId, id));
    }
  }
  if (created + updated > 0) w.touch('posts');
  return { created, updated, skipped };
}

/** The import record of a stored post, so that a count can change through the same section. */
export function recordOfRow(row: PostRow): PostImport {
  const doc = JSON.parse(row.doc) as PostDoc;
  const message = doc.chat_message;
  return {
    ...doc,
    id: row.id,
    feed_id: row.feed_id,
    author_profile_id: row.author_profile_id ?? '',
    created_at: formatJsonTimestamp(row.created_at),
    content_created_at: formatJsonTimestamp(row.content_created_at),
    latest_activity_at: formatJsonTimestamp(row.latest_activity_at),
    chat_message: {
      ...message,
      id: message.id || null,
      parent_chat_message_id: message.parent_chat_message_id || null,
    },
  } as PostImport;
}

/** Changes a stored post (counts, activity) through the posts section; false when the post is unknown. */
export async function adjustPost(w: CommunityWrite, postId: string, change: (record: PostImport) => PostImport): Promise<boolean> {
  await lockPost(w, postId);
  const row = (await selectPostRows(w.tx, w.communityId, [postId])).get(postId);
  if (!row) return false;
  await writePosts(w, [change(recordOfRow(row))]);
  return true;
}

/**
 * Takes the post's row lock before a read-modify-write (a count step): on PostgreSQL two instances
 * applying two reactions to one post would otherwise both read n and write n+1. A no-op update is
 * the lock on both engines (SQLite has one writer at a time anyway, and no FOR UPDATE).
 */
export async function lockPost(w: CommunityWrite, postId: string): Promise<void> {
  await lockPostRow(w.tx, w.communityId, postId);
}

async function lockPostRow(tx: Tx, communityId: string, id: string): Promise<void> {
  await tx
    .updateTable('posts')
    .set((eb) => ({ id: eb.ref('id') }))
    .where('community_id', '=', communityId)
    .where('id', '=', id)
    .execute();
}

async function lockFeedRow(tx: Tx, communityId: string, id: string): Promise<void> {
  await tx
    .updateTable('feeds')
    .set((eb) => ({ id: eb.ref('id') }))
    .where('community_id', '=', communityId)
    .where('id', '=', id)
    .execute();
}

/** The same lock for a feed row (member counts, renames). */
export async function lockFeed(w: CommunityWrite, feedId: string): Promise<FeedRow | undefined> {
  await lockFeedRow(w.tx, w.communityId, feedId);
  return (await selectFeedRows(w.tx, w.communityId, [feedId])).get(feedId);
}

/** Deletes a post (message_deleted), rendering it for the webhook before it goes when an endpoint wants it. */
export async function deletePost(w: CommunityWrite, postId: string): Promise<boolean> {
  const rendered = (await w.wanted('post.deleted')) ? await renderPostObject(w.tx, w.communityId, postId) : undefined;
  if (rendered === null || !(await deletePostRow(w.tx, w.communityId, postId))) return false;
  w.touch('posts');
  if (rendered !== undefined) w.emit('post.deleted', () => rendered);
  return true;
}

/** A post as the API answers it (a plain object), or null when there is no such post. */
export async function renderPostObject(tx: Tx, communityId: string, postId: string): Promise<unknown> {
  const row = (await selectPostRows(tx, communityId, [postId])).get(postId);
  if (!row) return null;
  const authors = await selectProfileJsonByIds(tx, communityId, row.author_profile_id ? [row.author_profile_id] : []);
  const feed = (await selectFeedRows(tx, communityId, [row.feed_id])).get(row.feed_id);
  const [references] = await resolveReferences(tx, communityId, [JSON.parse(row.mentions) as Mentions]);
  const summary = feed ? feedSummaryOf(feed) : { id: row.feed_id, label: '', slug: '' };
  return JSON.parse(renderPost(row, authors.get(row.author_profile_id ?? ''), summary, references as NonNullable<typeof references>));
}
