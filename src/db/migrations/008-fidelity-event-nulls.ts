import { atomically, type MigrationDb, rewriteDocs } from './migration-support.js';

/*
 * Events answer null where they have no value (issue 17, decisions.md): link, recording_link,
 * webhook_custom_metadata, partner_event_id, external_speakers, recap_chat_blocks and
 * description_chat_blocks. The import used to store "" and [] for "no value", so stored docs are
 * rewritten: "" and [] become null (the import now does the same with what it is given).
 * Wrapped in a transaction on SQLite, whose migrator runs without one.
 */

const textFields = ['link', 'recording_link', 'webhook_custom_metadata', 'partner_event_id', 'external_speakers'] as const;
const blockFields = ['recap_chat_blocks', 'description_chat_blocks'] as const;

type Doc = Record<string, unknown>;

function toNulls(doc: Doc): Doc | undefined {
  const next = { ...doc };
  for (const field of textFields) if (next[field] === '') next[field] = null;
  for (const field of blockFields) if (Array.isArray(next[field]) && (next[field] as unknown[]).length === 0) next[field] = null;
  return [...textFields, ...blockFields].some((field) => next[field] !== doc[field]) ? next : undefined;
}

// description_chat_blocks stays null on the way down: it was the one field that could be null before.
function fromNulls(doc: Doc): Doc | undefined {
  const next = { ...doc };
  for (const field of textFields) if (next[field] === null) next[field] = '';
  if (next.recap_chat_blocks === null) next.recap_chat_blocks = [];
  return [...textFields, 'recap_chat_blocks'].some((field) => next[field] !== doc[field]) ? next : undefined;
}

export async function up(db: MigrationDb): Promise<void> {
  await atomically(db, (tx) => rewriteDocs(tx, 'calendar_events', toNulls));
}

export async function down(db: MigrationDb): Promise<void> {
  await atomically(db, (tx) => rewriteDocs(tx, 'calendar_events', fromNulls));
}
