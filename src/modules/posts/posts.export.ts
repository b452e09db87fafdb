import type { Selectable } from 'kysely';
import type { PostsTable } from '../../db/schema.js';
import { exportInstant, idOrNull, parseDoc } from '../../shared/export-records.js';

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
