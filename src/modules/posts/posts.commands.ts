import { batchesOf } from '../../db/batches.js';
import type { Tx } from '../../db/database.js';
import { resolveStamps } from '../../import/import-fields.js';
import { duplicateIdFailure } from '../../import/import-section.js';
import { resolveReferences } from '../../references/resolve-references.js';
import { emptyReferences, extractMentions, renderOptionsFromReferences } from '../../rich-text/index.js';
import { type Failure, Refused } from '../../shared/failures.js';
import type { EpochMicros } from '../../shared/time.js';
import { formatJsonTimestamp } from '../../shared/timestamps.js';
import type { TxContext } from '../../write-path/command-context.js';
import type { CommunityWrite } from '../../write-path/write-community-data.js';
import { homeFlag, selectFeedRows } from '../feeds/feeds.queries.js';
import { selectExistingProfileIds } from '../profiles/profiles.queries.js';
import type { SearchableText } from '../search/queries/entries.js';
import { deletePostRow, lockPostRow, type PostRow, selectPostRows, upsertPostRows } from './posts.queries.js';
import { renderPostObject } from './posts.reads.js';
import { derivePostDoc, type ParsedPost, parsePostRecord } from './posts.rules.js';
import type { PostDoc, PostImport } from './posts.schemas.js';

/*
 * Every change of posts: the import's upsert (upsertPosts), chat sync's messages created, edited,
 * deleted and counted (writePosts, adjustPost, deletePost). A synced post is checked, derived and
 * stored exactly as an imported one, because both are written by upsertPosts.
 */

/** A post an upsert wrote, new or changed (a post whose stamps alone moved is neither), in the records' order. */
export interface WrittenPost {
  id: string;
  change: 'created' | 'updated';
}

/** Refuses the first post whose feed or author is neither in the file nor in the community; else each feed's in_home. */
async function checkReferences(tx: Tx, communityId: string, posts: readonly ParsedPost[]): Promise<Map<string, 0 | 1>> {
  const feeds = await selectFeedRows(
    tx,
    communityId,
    posts.map((post) => post.feedId),
  );
  const authors = await selectExistingProfileIds(
    tx,
    communityId,
    posts.map((post) => post.authorId),
  );
  const failures = (post: ParsedPost, index: number): Failure | undefined => {
    if (!feeds.has(post.feedId))
      return { path: [index, 'feed_id'], rule: 'unknown_reference', message: `no feed "${post.feedId}" in this community or file` };
    if (!authors.has(post.authorId)) {
      const message = `no profile "${post.authorId}" in this community or file`;
      return { path: [index, 'author_profile_id'], rule: 'unknown_reference', message };
    }
    return undefined;
  };
  for (const [index, post] of posts.entries()) {
    const failure = failures(post, index);
    if (failure) throw new Refused([failure]);
  }
  return new Map([...feeds].map(([id, feed]) => [id, homeFlag(feed)]));
}

/** The row of a post; instants the record leaves out follow created_at (see resolveStamps). */
function postRow(post: ParsedPost, doc: string, mentions: string, before: PostRow | undefined, inHome: 0 | 1, now: EpochMicros): PostRow {
  const given = post.instants;
  const created = given.created_at ?? before?.created_at ?? now;
  const content_created_at = given.content_created_at ?? created;
  const latest_activity_at = given.latest_activity_at ?? content_created_at;
  const unchanged =
    before !== undefined &&
    before.doc === doc &&
    before.feed_id === post.feedId &&
    before.author_profile_id === post.authorId &&
    before.content_created_at === content_created_at &&
    before.latest_activity_at === latest_activity_at;
  const stamps = resolveStamps({ created_at: created, updated_at: given.updated_at }, before && { ...before, unchanged }, now);
  return {
    id: post.record.id,
    feed_id: post.feedId,
    author_profile_id: post.authorId,
    in_home: inHome,
    content_created_at,
    latest_activity_at,
    doc,
    mentions,
    ...stamps,
  };
}

const sameRow = (row: PostRow, before: PostRow): boolean =>
  (Object.keys(row) as (keyof PostRow)[]).every((key) => row[key] === before[key]);

/** What a post.updated event reports: the post as a reader sees it (its stamps alone are not a change). */
const contentChanged = (a: PostRow, b: PostRow): boolean =>
  a.doc !== b.doc ||
  a.latest_activity_at !== b.latest_activity_at ||
  a.content_created_at !== b.content_created_at ||
  a.feed_id !== b.feed_id ||
  a.author_profile_id !== b.author_profile_id;

/** Derives and upserts one batch: names for mentions are resolved once for the whole batch. */
async function upsertBatch(
  w: TxContext,
  posts: readonly ParsedPost[],
  inHome: Map<string, 0 | 1>,
  authorNames: Map<string, string>,
  written: WrittenPost[],
): Promise<void> {
  const mentions = posts.map((post) => extractMentions(post.record.chat_message?.blocks ?? []));
  const references = await resolveReferences(w.tx, w.communityId, mentions);
  const stored = await selectPostRows(
    w.tx,
    w.communityId,
    posts.map((post) => post.record.id),
  );
  // The searchable text of each post, as derived: the search index need not parse the doc again.
  const texts = new Map<string, SearchableText>();
  const created = new Set<string>();
  const rows: PostRow[] = [];
  posts.forEach((post, i) => {
    const derived = derivePostDoc(post.record, renderOptionsFromReferences(references[i] ?? emptyReferences()));
    texts.set(post.record.id, derived);
    const before = stored.get(post.record.id);
    const row = postRow(post, JSON.stringify(derived), JSON.stringify(mentions[i]), before, inHome.get(post.feedId) ?? 0, w.now);
    // Rows left exactly as they are are not written: a re-import costs reads only.
    if (before !== undefined && sameRow(row, before)) return;
    rows.push(row);
    if (before === undefined) {
      written.push({ id: row.id, change: 'created' });
      created.add(row.id);
    } else if (contentChanged(before, row)) written.push({ id: row.id, change: 'updated' });
  });
  await upsertPostRows(w.tx, w.communityId, rows, { texts, created, authorNames });
}

/**
 * Upserts checked post records by id (the import's `posts`, chat sync's messages), with the derived
 * fields (bodies, read time, mentions) computed here and in_home from the post's feed. Refused when an
 * id appears twice or a feed or author is unknown: the failure's path starts with the record's index.
 */
export async function upsertPosts(w: TxContext, posts: readonly ParsedPost[]): Promise<WrittenPost[]> {
  const duplicate = duplicateIdFailure(posts, (post) => post.record.id);
  if (duplicate) throw new Refused([duplicate]);
  const inHome = await checkReferences(w.tx, w.communityId, posts);
  const written: WrittenPost[] = [];
  // The search index reads each author's name once for all the batches (no profile changes here).
  const authorNames = new Map<string, string>();
  for (const batch of batchesOf(posts)) await upsertBatch(w, batch, inHome, authorNames, written);
  return written;
}

/**
 * Upserts post records made outside the import file (chat sync): a record the post rules refuse is
 * skipped, not fatal. Touches the posts view and emits post.created and post.updated for what changed.
 */
export async function writePosts(
  w: CommunityWrite,
  records: readonly PostImport[],
): Promise<{ created: number; updated: number; skipped: number }> {
  const parsed: ParsedPost[] = [];
  for (const record of records) {
    try {
      parsed.push(parsePostRecord(record));
    } catch (error) {
      if (!(error instanceof Refused)) throw error;
    }
  }
  const skipped = records.length - parsed.length;
  if (parsed.length === 0) return { created: 0, updated: 0, skipped };
  const written = await upsertPosts(w, parsed);
  for (const { id, change } of written) w.emit(`post.${change}`, () => renderPostObject(w.tx, w.communityId, id));
  if (written.length > 0) w.touch('posts');
  const created = written.filter((post) => post.change === 'created').length;
  return { created, updated: written.length - created, skipped };
}

/** The record of a stored post, so that a count can change through the same rules. */
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

/** Changes a stored post (counts, activity) under its row lock; false when the post is unknown. */
export async function adjustPost(
  w: CommunityWrite,
  { postId, change }: { postId: string; change: (record: PostImport) => PostImport },
): Promise<boolean> {
  await lockPost(w, postId);
  const row = (await selectPostRows(w.tx, w.communityId, [postId])).get(postId);
  if (!row) return false;
  await writePosts(w, [change(recordOfRow(row))]);
  return true;
}

/**
 * Takes the post's row lock before a read-modify-write (a count step): on PostgreSQL two instances
 * applying two reactions to one post would otherwise both read n and write n+1.
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
