import { defaultPublicBaseUrl } from '../shared/public-base-url.js';
import { importDocumentInSpecSpelling } from '../wire-names/import-spelling.js';
import type { CommandContext } from '../write-path/command-context.js';
import { writeCommunityData } from '../write-path/write-community-data.js';
import { asImportError, atIndex, ImportError } from './import-section.js';
import { importSections } from './sections.js';

export type ImportCounts = Record<string, number>;

/**
 * Loads an import document into a community, all or nothing: every record is checked first, then
 * every section is upserted by id in one transaction; any problem rolls the whole file back. A
 * section's refusal (Refused, its paths starting with the record's index) is printed as the
 * import's `<section>[<index>].<field>: <message>`.
 */
export async function runImport(ctx: CommandContext<{ publicBaseUrl?: string }>, document: unknown): Promise<ImportCounts> {
  const { communityId } = ctx;
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    throw new ImportError({
      path: ['file'],
      rule: 'type',
      message: 'must be a JSON object with sections such as "profiles" or "calendar_events"',
    });
  }
  const known = new Set(importSections.map((section) => section.name));
  for (const key of Object.keys(document)) {
    if (!known.has(key))
      throw new ImportError({ path: [key], rule: 'unknown_section', message: `unknown section (known: ${[...known].join(', ')})` });
  }
  // Either spelling of the wire format is accepted, whatever WIRE_NAMES says.
  const source = importDocumentInSpecSpelling(document as Record<string, unknown>);
  const parsed = importSections.map((section) => {
    const records = source[section.name];
    if (records === undefined) return { section, records: null };
    if (!Array.isArray(records)) throw new ImportError({ path: [section.name], rule: 'type', message: 'must be an array' });
    // A section refuses a record as data (Refused, its paths in the record).
    try {
      return { section, records: records.map((record, index) => atIndex(index, () => section.parse(record, index))) };
    } catch (error) {
      throw asImportError(section.name, error);
    }
  });

  return writeCommunityData(ctx, communityId, async (w) => {
    const context = { tx: w.tx, communityId, now: w.now, publicBaseUrl: ctx.publicBaseUrl ?? defaultPublicBaseUrl };
    const counts: ImportCounts = {};
    for (const { section, records } of parsed) {
      if (!records) continue;
      try {
        counts[section.name] = await section.apply(context, records);
      } catch (error) {
        throw asImportError(section.name, error);
      }
    }
    // Any section can change what event or post answers show (profiles and feeds are referenced by both).
    w.touch('events');
    w.touch('posts');
    w.touch('members');
    // One record for the whole run, with its counts (the rows it wrote are not recorded one by one).
    w.record({ action: 'import.completed', target: { type: 'community', id: null, name: null }, metadata: { counts } });
    return counts;
  });
}
