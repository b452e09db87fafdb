import type { TSchema } from '@sinclair/typebox';
import type { Database, Db } from '../db/database.js';
import { activityExportRecords } from '../modules/activities/activities.export.js';
import { ActivityImportSchema } from '../modules/activities/activities.import.js';
import { awardRecords } from '../modules/awards/awards.export.js';
import { awardRowsInIdOrder } from '../modules/awards/awards.queries.js';
import { AwardImportSchema } from '../modules/awards/awards.schemas.js';
import { eventRecords } from '../modules/calendar-events/calendar-events.export.js';
import { eventRowsInIdOrder } from '../modules/calendar-events/queries/events.js';
import { CalendarEventImportSchema } from '../modules/calendar-events/schemas/import-record.js';
import { feedRecord } from '../modules/feeds/feeds.export.js';
import { feedRowsInIdOrder } from '../modules/feeds/feeds.queries.js';
import { FeedImportSchema } from '../modules/feeds/feeds.schemas.js';
import { base64Pieces, type ExportedFile, fileRecordHead } from '../modules/files/files.export.js';
import { FileImportSchema } from '../modules/files/files.import.js';
import { fileRowsInIdOrder } from '../modules/files/files.queries.js';
import { groupRecords } from '../modules/groups/groups.export.js';
import { groupRowsInIdOrder } from '../modules/groups/groups.queries.js';
import { GroupImportSchema } from '../modules/groups/groups.schemas.js';
import { memberRecord } from '../modules/members/members.export.js';
import { memberRowsInIdOrder } from '../modules/members/members.queries.js';
import { MemberImportSchema } from '../modules/members/members.schemas.js';
import { postRecord } from '../modules/posts/posts.export.js';
import { postRowsInIdOrder } from '../modules/posts/posts.queries.js';
import { PostImportSchema } from '../modules/posts/posts.schemas.js';
import { profileRecord } from '../modules/profiles/profiles.export.js';
import { profileRowsInIdOrder } from '../modules/profiles/profiles.queries.js';
import { ProfileImportSchema } from '../modules/profiles/profiles.schemas.js';
import { readSnapshot } from '../write-path/read-snapshot.js';
import { orderLikeSchema } from './schema-order.js';

/** Where the export's text goes; `write` resolves when the sink can take more (back-pressure). */
export interface ExportSink {
  write(text: string): Promise<void>;
}

export type ExportCounts = Record<string, number>;

export interface ExportOptions {
  /** One line per batch written (the CLI sends it to stderr). */
  progress?: (line: string) => void;
}

type Records = AsyncGenerator<Record<string, unknown>[]>;

/** One section of the file: its name, the schema its records follow, and its records in id order. */
interface ExportSection {
  name: string;
  schema: TSchema;
  records(tx: Db, database: Database, communityId: string): Records;
  /** The text of one record, in pieces, when it is too large to build at once (a file's bytes); default: its JSON. */
  pieces?(tx: Db, record: Record<string, unknown>): AsyncGenerator<string>;
}

async function* mapped<R extends { id: string }>(
  batches: AsyncGenerator<R[]>,
  map: (rows: R[]) => Promise<Record<string, unknown>[]> | Record<string, unknown>[],
): Records {
  for await (const rows of batches) yield await map(rows);
}

/** A file's record: its fields in schema order, then its bytes in base64, streamed chunk by chunk. */
async function* fileRecordPieces(tx: Db, record: Record<string, unknown>): AsyncGenerator<string> {
  const file = record as unknown as ExportedFile;
  const head = JSON.stringify(orderLikeSchema(fileRecordHead(file), FileImportSchema));
  yield `${head.slice(0, -1)},"content_base64":"`;
  yield* base64Pieces(tx, file);
  yield '"}';
}

/** The sections in the import's own order (a section refers only to those before it). */
const exportSections: ExportSection[] = [
  {
    name: 'files',
    schema: FileImportSchema,
    records: (tx, { engine }, communityId) => fileRowsInIdOrder(tx, engine, communityId) as Records,
    pieces: fileRecordPieces,
  },
  {
    name: 'profiles',
    schema: ProfileImportSchema,
    records: (tx, { engine }, communityId) => mapped(profileRowsInIdOrder(tx, engine, communityId), (rows) => rows.map(profileRecord)),
  },
  {
    name: 'members',
    schema: MemberImportSchema,
    records: (tx, { engine }, communityId) => mapped(memberRowsInIdOrder(tx, engine, communityId), (rows) => rows.map(memberRecord)),
  },
  {
    name: 'groups',
    schema: GroupImportSchema,
    records: (tx, { engine }, communityId) =>
      mapped(groupRowsInIdOrder(tx, engine, communityId), (rows) => groupRecords(tx, communityId, rows)),
  },
  {
    name: 'feeds',
    schema: FeedImportSchema,
    records: (tx, { engine }, communityId) => mapped(feedRowsInIdOrder(tx, engine, communityId), (rows) => rows.map(feedRecord)),
  },
  {
    name: 'posts',
    schema: PostImportSchema,
    records: (tx, { engine }, communityId) => mapped(postRowsInIdOrder(tx, engine, communityId), (rows) => rows.map(postRecord)),
  },
  {
    name: 'calendar_events',
    schema: CalendarEventImportSchema,
    records: (tx, { engine }, communityId) =>
      mapped(eventRowsInIdOrder(tx, engine, communityId), (rows) => eventRecords(tx, communityId, rows)),
  },
  {
    name: 'awards',
    schema: AwardImportSchema,
    records: (tx, { engine }, communityId) =>
      mapped(awardRowsInIdOrder(tx, engine, communityId), (rows) => awardRecords(tx, communityId, rows)),
  },
  {
    // The activity log, in chain order (not by id): loaded unchanged, it verifies where it is imported.
    name: 'activities',
    schema: ActivityImportSchema,
    records: (tx, _database, communityId) => activityExportRecords(tx, communityId),
  },
];

/**
 * Writes a community as an import file: every section in a fixed order, records in byte order of
 * id, keys in the order of the import schema, one record per line. The same data gives the same
 * bytes on either engine, and importing the file into an empty community then exporting that one
 * gives the same bytes again (the round trip that proves nothing is lost). Reads one consistent
 * snapshot, a batch at a time, writing as it goes: memory does not grow with the community.
 * The community's own id appears nowhere: the file is loaded into whichever community `import` names.
 */
export async function exportCommunity(
  database: Database,
  communityId: string,
  sink: ExportSink,
  options: ExportOptions = {},
): Promise<ExportCounts> {
  const progress = options.progress ?? (() => {});
  // One snapshot for every section, so references inside the file always resolve.
  return readSnapshot(database, async (tx) => {
    const counts: ExportCounts = {};
    await sink.write('{');
    for (const [s, section] of exportSections.entries()) {
      await sink.write(`${s === 0 ? '' : ','}\n${JSON.stringify(section.name)}: [`);
      let count = 0;
      for await (const records of section.records(tx, database, communityId)) {
        if (section.pieces) {
          for (const [i, record] of records.entries()) {
            await sink.write(count + i === 0 ? '\n' : ',\n');
            for await (const piece of section.pieces(tx, record)) await sink.write(piece);
          }
        } else {
          const lines = records.map(
            (record, i) => `${count + i === 0 ? '' : ','}\n${JSON.stringify(orderLikeSchema(record, section.schema))}`,
          );
          await sink.write(lines.join(''));
        }
        count += records.length;
        progress(`export ${section.name}: ${count}`);
      }
      await sink.write(count === 0 ? ']' : '\n]');
      counts[section.name] = count;
    }
    await sink.write('\n}\n');
    return counts;
  });
}
