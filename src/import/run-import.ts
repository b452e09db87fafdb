import type { Database } from '../db/database.js';
import { bumpDataVersion } from '../modules/communities/communities.queries.js';
import type { Clock } from '../shared/clock.js';
import { ImportError } from './import-section.js';
import { importSections } from './sections.js';

export type ImportCounts = Record<string, number>;

/**
 * Loads an import document into a community, all or nothing: every record is checked first, then
 * every section is upserted by id in one transaction; any problem rolls the whole file back.
 */
export async function runImport(database: Database, clock: Clock, communityId: string, document: unknown): Promise<ImportCounts> {
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    throw new ImportError('file', null, null, 'must be a JSON object with sections such as "profiles" or "calendar_events"');
  }
  const known = new Set(importSections.map((section) => section.name));
  for (const key of Object.keys(document)) {
    if (!known.has(key)) throw new ImportError(key, null, null, `unknown section (known: ${[...known].join(', ')})`);
  }
  const source = document as Record<string, unknown>;
  const parsed = importSections.map((section) => {
    const records = source[section.name];
    if (records === undefined) return { section, records: null };
    if (!Array.isArray(records)) throw new ImportError(section.name, null, null, 'must be an array');
    return { section, records: records.map((record, index) => section.parse(record, index)) };
  });

  const context = { communityId, now: clock.now() };
  return database.db.transaction().execute(async (tx) => {
    const counts: ImportCounts = {};
    for (const { section, records } of parsed) {
      if (records) counts[section.name] = await section.apply(tx, records, context);
    }
    // Imported events or posts change list totals: invalidate every cached count of the community.
    await bumpDataVersion(tx, communityId, 'events_version');
    await bumpDataVersion(tx, communityId, 'posts_version');
    return counts;
  });
}
