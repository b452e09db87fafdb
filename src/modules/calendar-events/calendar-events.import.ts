import type { ImportSection } from '../../import/import-section.js';
import { importEvents } from './commands/import-events.js';
import { type ParsedEvent, parseEventRecord } from './rules/event-record.js';

/**
 * The `calendar_events` section of the import file (its record: schemas/import-record.ts): each
 * record checked by the event rules, then all of them upserted by the importEvents command. Their
 * refusals are printed by the import (src/import/run-import.ts) as `calendar_events[i].<field>: <message>`.
 */
export const calendarEventsImportSection: ImportSection<ParsedEvent> = {
  name: 'calendar_events',
  parse: (record) => parseEventRecord(record),
  apply: (context, records) => importEvents(context, records),
};
