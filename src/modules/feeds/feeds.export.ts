import type { Selectable } from 'kysely';
import type { FeedsTable } from '../../db/schema.js';
import { exportInstant, parseDoc } from '../../shared/export-records.js';

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
