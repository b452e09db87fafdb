import { batchesOf } from '../../db/batches.js';
import type { Tx } from '../../db/database.js';
import { assertImportBlocks, assertNoDerivedFields, importInstant, resolveStamps } from '../../import/import-fields.js';
import type { ImportContext, ImportSection } from '../../import/import-section.js';
import { assertUniqueIds, ImportError, schemaParser } from '../../import/import-section.js';
import { resolveReferences } from '../../references/resolve-references.js';
import { emptyReferences, extractMentions, renderOptionsFromReferences } from '../../rich-text/index.js';
import type { EpochMicros } from '../../shared/time.js';
import { homeFlag, selectFeedRows } from '../feeds/feeds.queries.js';
import { selectExistingProfileIds } from '../profiles/profiles.queries.js';
import type { SearchableText } from '../search/queries/entries.js';
import { type PostRow, selectPostRows, upsertPosts } from './posts.queries.js';
import { derivePostDoc } from './posts.rules.js';
import { type PostImport, PostImportSchema } from './posts.schemas.js';

const section = 'posts';
const derivedFields = { author: 'author_profile_id', feed: 'feed_id', references: 'the message blocks' };
const parseShape = schemaParser<PostImport>(section, PostImportSchema);

/** A checked post import record with its instants parsed. */
interface ParsedPost {
  record: PostImport;
  feedId: string;
  authorId: string;
  instants: Record<'created_at' | 'updated_at' | 'content_created_at' | 'latest_activity_at', EpochMicros | undefined>;
}

function parsePost(raw: unknown, index: number): ParsedPost {
  assertNoDerivedFields(section, index, raw, derivedFields);
  const record = parseShape(raw, index);
  const blocks = record.chat_message?.blocks;
  if (blocks != null) assertImportBlocks(section, index, 'chat_message.blocks', blocks);
  const instant = (field: keyof ParsedPost['instants']) => importInstant(record[field], section, index, field);
  return {
    record,
    feedId: record.feed_id.toLowerCase(),
    authorId: record.author_profile_id.toLowerCase(),
    instants: {
      created_at: instant('created_at'),
      updated_at: instant('updated_at'),
      content_created_at: instant('content_created_at'),
      latest_activity_at: instant('latest_activity_at'),
    },
  };
}

/** Refuses the first post whose feed or author is neither in the file nor in the community. */
async function assertReferencesExist(tx: Tx, communityId: string, posts: ParsedPost[]): Promise<Map<string, 0 | 1>> {
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
  posts.forEach((post, index) => {
    if (!feeds.has(post.feedId)) throw new ImportError(section, index, 'feed_id', `no feed "${post.feedId}" in this community or file`);
    if (!authors.has(post.authorId)) {
      throw new ImportError(section, index, 'author_profile_id', `no profile "${post.authorId}" in this community or file`);
    }
  });
  return new Map([...feeds].map(([id, feed]) => [id, homeFlag(feed)]));
}

/** The row of a post; instants the file leaves out follow created_at (see resolveStamps). */
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

/** Derives and upserts one batch: names for mentions are resolved once for the whole batch. */
async function applyBatch(tx: Tx, context: ImportContext, posts: ParsedPost[], inHome: Map<string, 0 | 1>): Promise<void> {
  const mentions = posts.map((post) => extractMentions(post.record.chat_message?.blocks ?? []));
  const references = await resolveReferences(tx, context.communityId, mentions);
  const stored = await selectPostRows(
    tx,
    context.communityId,
    posts.map((post) => post.record.id),
  );
  // The searchable text of each post, as derived: the search index need not parse the doc again.
  const texts = new Map<string, SearchableText>();
  const rows = posts.map((post, i) => {
    const derived = derivePostDoc(post.record, renderOptionsFromReferences(references[i] ?? emptyReferences()));
    texts.set(post.record.id, derived);
    return postRow(
      post,
      JSON.stringify(derived),
      JSON.stringify(mentions[i]),
      stored.get(post.record.id),
      inHome.get(post.feedId) ?? 0,
      context.now,
    );
  });
  // Rows the file leaves exactly as they are are not written: a re-import costs reads only.
  await upsertPosts(
    tx,
    context.communityId,
    rows.filter((row) => !sameRow(row, stored.get(row.id))),
    texts,
  );
}

function sameRow(row: PostRow, before: PostRow | undefined): boolean {
  if (before === undefined) return false;
  return (Object.keys(row) as (keyof PostRow)[]).every((key) => row[key] === before[key]);
}

/**
 * The `posts` section: after feeds and profiles, whose ids it refers to. Upserts by id with the
 * derived fields (bodies, read time, mentions) computed here, and in_home from the post's feed.
 */
export const postsImportSection: ImportSection<ParsedPost> = {
  name: section,
  parse: parsePost,
  async apply(tx, posts, context) {
    assertUniqueIds(section, posts, (post) => post.record.id);
    const inHome = await assertReferencesExist(tx, context.communityId, posts);
    for (const batch of batchesOf(posts)) {
      await applyBatch(tx, context, batch, inHome);
    }
    return posts.length;
  },
};
