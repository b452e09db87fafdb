import { type Kysely, sql } from 'kysely';

/*
 * Events answer null where they have no value (issue 17, decisions.md): link, recording_link,
 * webhook_custom_metadata, partner_event_id, external_speakers, recap_chat_blocks and
 * description_chat_blocks. The import used to store "" and [] for "no value", so stored docs are
 * rewritten: "" and [] become null (the import now does the same with what it is given).
 * Wrapped in a transaction on SQLite, whose migrator runs without one.
 */

// Migrations are frozen in time: they must not depend on the evolving table types or helpers.
type AnyDb = Kysely<unknown>;

const textFields = ['link', 'recording_link', 'webhook_custom_metadata', 'partner_event_id', 'external_speakers'] as const;
const blockFields = ['recap_chat_blocks', 'description_chat_blocks'] as const;
const rowsPerRead = 1000;

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

async function rewriteEventDocs(db: AnyDb, rewrite: (doc: Doc) => Doc | undefined): Promise<void> {
  let after = { community_id: '', id: '' };
  for (;;) {
    const { rows } = await sql<{ community_id: string; id: string; doc: string }>`
      select community_id, id, doc from calendar_events
      where community_id > ${after.community_id} or (community_id = ${after.community_id} and id > ${after.id})
      order by community_id, id limit ${rowsPerRead}`.execute(db);
    for (const row of rows) {
      const next = rewrite(JSON.parse(row.doc) as Doc);
      if (next === undefined) continue;
      await sql`update calendar_events set doc = ${JSON.stringify(next)} where community_id = ${row.community_id} and id = ${row.id}`.execute(
        db,
      );
    }
    const last = rows.at(-1);
    if (!last || rows.length < rowsPerRead) return;
    after = { community_id: last.community_id, id: last.id };
  }
}

async function atomically(db: AnyDb, work: (db: AnyDb) => Promise<void>): Promise<void> {
  if (db.isTransaction) return work(db);
  await db.transaction().execute(work);
}

export async function up(db: AnyDb): Promise<void> {
  await atomically(db, (tx) => rewriteEventDocs(tx, toNulls));
}

export async function down(db: AnyDb): Promise<void> {
  await atomically(db, (tx) => rewriteEventDocs(tx, fromNulls));
}
