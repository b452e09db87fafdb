import type { ImportContext } from '../../import/import-section.js';
import { formatJsonTimestamp } from '../../shared/timestamps.js';
import type { CommunityWrite } from '../../write-path/write-community-data.js';
import { postsImportSection } from './posts.import.js';
import { deletePostRow, lockPostRow, type PostRow, selectPostRows } from './posts.queries.js';
import { renderPostObject } from './posts.reads.js';
import type { PostDoc, PostImport } from './posts.schemas.js';

/*
 * Changes of posts outside the import file: chat sync's messages (created, edited, deleted, counted)
 * go through the posts section (parse, then apply), so that a synced post is checked, derived and
 * stored exactly as an imported one. Each writes only what changed, touches the posts view and
 * emits the webhook events of the change.
 */

const contextOf = (w: CommunityWrite): ImportContext => ({ communityId: w.communityId, now: w.now });

const postChanged = (a: PostRow, b: PostRow): boolean =>
  a.doc !== b.doc ||
  a.latest_activity_at !== b.latest_activity_at ||
  a.content_created_at !== b.content_created_at ||
  a.feed_id !== b.feed_id ||
  a.author_profile_id !== b.author_profile_id;

/** Upserts posts through the posts section; returns how many were created and updated. */
export async function writePostRecords(
  w: CommunityWrite,
  records: PostImport[],
): Promise<{ created: number; updated: number; skipped: number }> {
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
function recordOfRow(row: PostRow): PostImport {
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
  await writePostRecords(w, [change(recordOfRow(row))]);
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

/** Deletes a post (message_deleted), rendering it for the webhook before it goes when an endpoint wants it. */
export async function deletePost(w: CommunityWrite, postId: string): Promise<boolean> {
  const rendered = (await w.wanted('post.deleted')) ? await renderPostObject(w.tx, w.communityId, postId) : undefined;
  if (rendered === null || !(await deletePostRow(w.tx, w.communityId, postId))) return false;
  w.touch('posts');
  if (rendered !== undefined) w.emit('post.deleted', () => rendered);
  return true;
}
