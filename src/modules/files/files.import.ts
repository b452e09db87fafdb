import { createHash } from 'node:crypto';
import { type Static, Type } from '@sinclair/typebox';
import { ImportUuid, instantAt, OptText, OptTimestamp } from '../../import/import-fields.js';
import { type ImportSection, recordParser, refuseDuplicateIds } from '../../import/import-section.js';
import { refuse } from '../../shared/failures.js';
import type { EpochMicros } from '../../shared/time.js';
import { putFile } from './files.commands.js';
import { selectForeignFiles } from './files.queries.js';

const section = 'files';

/**
 * A `files` record of the import file (and of the export): the upload's fields, the SHA-256 of the
 * bytes, and the bytes in base64, last, so an export can stream them. The mimetype is not part of
 * it: it is detected from the bytes again, as on upload.
 */
export const FileImportSchema = Type.Object(
  {
    id: ImportUuid(),
    name: Type.String({ minLength: 1, maxLength: 255 }),
    title: OptText(1000),
    size: Type.Integer({ minimum: 1 }),
    sha256: Type.String({ pattern: '^[0-9a-f]{64}$' }),
    created_at: OptTimestamp(),
    content_base64: Type.String({ pattern: '^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$' }),
  },
  { additionalProperties: false },
);
type FileImport = Static<typeof FileImportSchema>;

interface ParsedFile {
  record: FileImport;
  bytes: Buffer;
  created_at: EpochMicros | undefined;
}

const parseShape = recordParser<FileImport>(FileImportSchema);

/** A record's shape, size and digest checked (paths in the record). */
function parseFile(value: unknown): ParsedFile {
  const record = parseShape(value);
  const bytes = Buffer.from(record.content_base64, 'base64');
  if (bytes.length !== record.size)
    throw refuse(['size'], 'size_mismatch', `says ${record.size} bytes but content_base64 holds ${bytes.length}`);
  if (createHash('sha256').update(bytes).digest('hex') !== record.sha256)
    throw refuse(['sha256'], 'digest_mismatch', 'is not the SHA-256 of content_base64');
  return {
    record: { ...record, id: record.id.toLowerCase() },
    bytes,
    created_at: instantAt(record.created_at, ['created_at']),
  };
}

/**
 * The `files` section: upsert by id. An id another community holds is accepted only for the very
 * same file (name and bytes: an export imported into another community), since the public URL
 * names the file by id alone.
 */
export const filesImportSection: ImportSection<ParsedFile> = {
  name: section,
  parse: parseFile,
  async apply(context, records) {
    const { tx } = context;
    refuseDuplicateIds(records, (file) => file.record.id);
    const foreign = await selectForeignFiles(
      tx,
      context.communityId,
      records.map((file) => file.record.id),
    );
    for (const [index, { record, bytes, created_at }] of records.entries()) {
      const other = foreign.get(record.id);
      if (other && (other.name !== record.name || other.sha256 !== record.sha256))
        throw refuse([index, 'id'], 'foreign_file', `"${record.id}" is another community's file (with another name or other bytes)`);
      const title = record.title == null || record.title === '' ? null : record.title;
      const row = { community_id: context.communityId, id: record.id, name: record.name, title, size: bytes.length, sha256: record.sha256 };
      await putFile(context, { row: { ...row, created_at: created_at ?? context.now }, bytes });
    }
    return records.length;
  },
};
