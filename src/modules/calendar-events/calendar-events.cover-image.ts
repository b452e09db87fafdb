import type { Db, Tx } from '../../db/database.js';
import { ImportError } from '../../import/import-section.js';
import { selectFileNames } from '../files/files.queries.js';
import { fileUrl } from '../files/files.records.js';
import { type ParsedEvent, section } from './calendar-events.import-parse.js';

/**
 * Sets the cover_image_url of every event that names an uploaded file (cover_image_file_id) to that
 * file's public URL; an ImportError names the first record whose file the community does not have.
 * The URL is stored as it is now (PUBLIC_BASE_URL at the time of the write: docs/files.md).
 */
export async function resolveCoverImages(
  db: Db | Tx,
  communityId: string,
  records: readonly ParsedEvent[],
  baseUrl: string,
): Promise<void> {
  const ids = records.flatMap((record) => (record.coverImageFileId === null ? [] : [record.coverImageFileId]));
  if (ids.length === 0) return;
  const names = await selectFileNames(db, communityId, ids);
  records.forEach((record, index) => {
    const id = record.coverImageFileId;
    if (id === null) return;
    const name = names.get(id);
    if (name === undefined) throw new ImportError(section, index, 'cover_image_file_id', `no file "${id}" in this community`);
    record.doc = { ...record.doc, cover_image_url: fileUrl(baseUrl, id, name) };
  });
}
