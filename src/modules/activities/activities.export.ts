import type { Db } from '../../db/database.js';
import { type ActivityFilter, activityRowsInChainOrder } from './activities.queries.js';
import { type ActivityRecord, activityRecord } from './activities.records.js';
import type { ActivityExportFormat } from './activities.schemas.js';

/*
 * The log written out line by line, the one definition of its files: `activity export` (the CLI)
 * and `GET /admin/v0/activities/export` (the API, which the console's export buttons download).
 * JSON Lines, one record per line exactly as the API answers it, or CSV with one column per field
 * (context split into its three, changes and metadata as JSON). Oldest first, in chain order, so
 * that the file can be checked hash by hash.
 */

/** The media type of each format's file (the API's Content-Type). */
export const activityExportMediaTypes: Readonly<Record<ActivityExportFormat, string>> = {
  jsonl: 'application/x-ndjson; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
};

const csvColumns = [
  'id',
  'occurred_at',
  'action',
  'actor_type',
  'actor_id',
  'actor_label',
  'target_type',
  'target_id',
  'target_name',
  'request_id',
  'ip',
  'user_agent',
  'changes',
  'metadata',
  'hash',
] as const;

/** A CSV field: quoted when it holds a comma, a quote or a line break (RFC 4180); null is empty. */
function csvField(value: string | null): string {
  if (value === null) return '';
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

function csvLine(record: ActivityRecord): string {
  const json = (value: unknown) => (value === null ? null : JSON.stringify(value));
  const fields: (string | null)[] = [
    record.id,
    record.occurred_at,
    record.action,
    record.actor.type,
    record.actor.id,
    record.actor.label,
    record.target.type,
    record.target.id,
    record.target.name,
    record.context?.request_id ?? null,
    record.context?.ip ?? null,
    record.context?.user_agent ?? null,
    json(record.changes),
    json(record.metadata),
    record.hash,
  ];
  return `${fields.map(csvField).join(',')}\r\n`;
}

/**
 * The export's text, a batch of records at a time (memory stays flat whatever the log's size);
 * `progress` is told the count after each batch.
 */
export async function* activityExportText(
  db: Db,
  communityId: string,
  format: ActivityExportFormat,
  filter: ActivityFilter,
  progress: (written: number) => void = () => {},
): AsyncGenerator<string> {
  if (format === 'csv') yield `${csvColumns.join(',')}\r\n`;
  let written = 0;
  for await (const rows of activityRowsInChainOrder(db, communityId, filter)) {
    const records = rows.map(activityRecord);
    yield format === 'csv' ? records.map(csvLine).join('') : records.map((record) => `${JSON.stringify(record)}\n`).join('');
    written += rows.length;
    progress(written);
  }
}

/** The `activities` section of the data export: every record in chain order, with its predecessor's hash. */
export async function* activityExportRecords(db: Db, communityId: string): AsyncGenerator<Record<string, unknown>[]> {
  for await (const rows of activityRowsInChainOrder(db, communityId))
    yield rows.map((row) => ({ ...activityRecord(row), prev_hash: row.prev_hash }));
}
