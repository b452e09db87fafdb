import { atomically, type MigrationDb, rewriteDocs } from './migration-support.js';

/*
 * Posts answer null where they have no value and `chat_message.message_ts` as a string (issue 17,
 * decisions.md). The import used to store "" for cover_image_file_id, cover_image_url and
 * chat_message.parent_chat_message_id, username and icon, and message_ts as a number (0 for none),
 * so stored docs are rewritten the way the import now stores what it is given: "" becomes null,
 * a number is spelled with Slack's six decimals, 0 becomes null.
 * Wrapped in a transaction on SQLite, whose migrator runs without one.
 */

type Doc = Record<string, unknown>;

const postFields = ['cover_image_file_id', 'cover_image_url'] as const;
const messageFields = ['parent_chat_message_id', 'username', 'icon'] as const;

const emptyToNull = (record: Doc, fields: readonly string[]): boolean => {
  let changed = false;
  for (const field of fields)
    if (record[field] === '') {
      record[field] = null;
      changed = true;
    }
  return changed;
};

const nullToEmpty = (record: Doc, fields: readonly string[]): boolean => {
  let changed = false;
  for (const field of fields)
    if (record[field] === null) {
      record[field] = '';
      changed = true;
    }
  return changed;
};

function toNulls(doc: Doc): Doc | undefined {
  const next: Doc = { ...doc };
  let changed = emptyToNull(next, postFields);
  if (typeof next.chat_message === 'object' && next.chat_message !== null) {
    const message: Doc = { ...(next.chat_message as Doc) };
    next.chat_message = message;
    if (emptyToNull(message, messageFields)) changed = true;
    const ts = message.message_ts;
    if (typeof ts === 'number' || ts === '') {
      message.message_ts = ts === 0 || ts === '' ? null : (ts as number).toFixed(6);
      changed = true;
    }
  }
  return changed ? next : undefined;
}

// The way down gives back the old spellings: "" for no value, message_ts a number (0 for none).
function fromNulls(doc: Doc): Doc | undefined {
  const next: Doc = { ...doc };
  let changed = nullToEmpty(next, postFields);
  if (typeof next.chat_message === 'object' && next.chat_message !== null) {
    const message: Doc = { ...(next.chat_message as Doc) };
    next.chat_message = message;
    if (nullToEmpty(message, messageFields)) changed = true;
    const ts = message.message_ts;
    if (ts === null || typeof ts === 'string') {
      message.message_ts = ts === null ? 0 : Number(ts);
      changed = true;
    }
  }
  return changed ? next : undefined;
}

export async function up(db: MigrationDb): Promise<void> {
  await atomically(db, (tx) => rewriteDocs(tx, 'posts', toNulls));
}

export async function down(db: MigrationDb): Promise<void> {
  await atomically(db, (tx) => rewriteDocs(tx, 'posts', fromNulls));
}
