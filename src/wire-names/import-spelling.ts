import { ImportError } from '../import/import-section.js';
import type { Failure } from '../shared/failures.js';
import { toChatName } from './wire-names.js';

/*
 * The import file may come from the hosted product (`slack_user_id`, `description_slack_blocks`,
 * `luma_event_id`, `source: "slack"`) or from this service in either spelling: whatever
 * WIRE_NAMES says, it is read in the spec's spelling. Rich text blocks have no such keys, so the
 * renaming walks the whole record.
 */

function renamed(value: unknown, path: Failure['path'], section: string, index: number): unknown {
  if (Array.isArray(value)) return value.map((item, i) => renamed(item, [...path, i], section, index));
  if (typeof value !== 'object' || value === null) return value;
  const result: Record<string, unknown> = Object.create(null);
  const spelledAs = new Map<string, string>();
  for (const [key, item] of Object.entries(value)) {
    const name = toChatName(key);
    const other = spelledAs.get(name);
    if (other !== undefined)
      throw new ImportError({
        path: [section, index, ...path, key],
        rule: 'two_spellings',
        message: `is also given as "${other}": give one spelling`,
      });
    spelledAs.set(name, key);
    result[name] = renamed(item, [...path, key], section, index);
  }
  return result;
}

/** A post's `source` in the spec's spelling. */
const specSource = (record: unknown): unknown =>
  typeof record === 'object' && record !== null && (record as { source?: unknown }).source === 'slack'
    ? { ...record, source: 'chat' }
    : record;

/** The import document in the spec's spelling (records spelled that way already are not copied). */
export function importDocumentInSpecSpelling(document: Record<string, unknown>): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const [section, records] of Object.entries(document)) {
    if (!Array.isArray(records)) {
      result[section] = records;
      continue;
    }
    result[section] = records.map((record, index) => {
      const spec = hasOtherSpelling(record) ? renamed(record, [], section, index) : record;
      return section === 'posts' ? specSource(spec) : spec;
    });
  }
  return result;
}

/** True when any key anywhere in the records is spelled the hosted product's way. */
function hasOtherSpelling(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(hasOtherSpelling);
  if (typeof value !== 'object' || value === null) return false;
  for (const [key, item] of Object.entries(value)) {
    if (toChatName(key) !== key || hasOtherSpelling(item)) return true;
  }
  return false;
}
