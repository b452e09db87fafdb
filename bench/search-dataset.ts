// The corpus of `npm run bench:search` (docs/search.md): ten communities, one holding a fifth of the
// posts (the target), with multilingual text, mentions, emoji and links (test/support/search-corpus.ts),
// built through the real import, interleaved in rounds as communities grow side by side. Cached in
// BENCH_SEARCH_DIR (default bench/.data/search/: the SQLite file, or a PostgreSQL schema) by size. The
// PostgreSQL corpus is a copy of the SQLite one's rows (the generator is deterministic, the import
// writes the same rows on both), its index built by the index's own writer: minutes, not an hour.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import { runSeed } from '../src/cli/seed/run-seed.js';
import { type Database, type Engine, ensurePostgresSchema, migrateToLatest, openDatabase } from '../src/db/database.js';
import { sqliteDriver } from '../src/db/sqlite-driver.js';
import { runImport } from '../src/import/run-import.js';
import { createCommunity } from '../src/modules/communities/communities.commands.js';
import { rebuildSearchIndex } from '../src/modules/search/search.commands.js';
import { systemClock } from '../src/shared/clock.js';
import { authorName, postText } from '../test/support/search-corpus.js';
import { ensurePostgresDatabase, withSearchPath } from './datasets.js';
import { dataDir, type Log } from './util.js';

const corpusDir = process.env.BENCH_SEARCH_DIR ?? join(dataDir, 'search');

/** Bump when the generator changes: cached corpora of an older version are rebuilt. */
const CORPUS_VERSION = 2;
const communities = 10;
const roundsOfImport = 40;
const authorsPerCommunity = 300;
const feedsPerCommunity = 8;

export interface SearchCorpus {
  version: number;
  engine: Engine;
  databaseUrl: string;
  totalPosts: number;
  /** Community ids, the target (a fifth of the posts) first. */
  communityIds: string[];
  postsPerCommunity: number[];
  buildSeconds: number;
}

/** The posts of each community: the target a fifth of the total, the nine others the rest. */
export function postsPerCommunity(total: number): number[] {
  const target = Math.round(total / 5);
  const other = Math.floor((total - target) / (communities - 1));
  return [target, ...Array.from({ length: communities - 1 }, () => other)];
}

const feedId = (c: number, f: number) => `f${String(c).padStart(7, '0')}-0000-4000-8000-${String(f).padStart(12, '0')}`;
const profileId = (c: number, a: number) => `a${String(c).padStart(7, '0')}-0000-4000-8000-${String(a).padStart(12, '0')}`;
const threeYears = 3 * 365 * 24 * 3600 * 1000;
const anchor = Date.parse('2026-11-01T00:00:00Z');

/** Import records of posts [from, to) of community `c`; with `everyThird`, that word ends the body of every third post. */
function postRecords(c: number, from: number, to: number, count: number, names: string[], everyThird?: string) {
  const records = [];
  for (let i = from; i < to; i++) {
    const { title, body } = postText(`community-${c}`, i, names);
    // Spread over three years, in the order they were written; activity now and then later.
    const created = anchor - threeYears + Math.floor(((i + 0.5) / count) * threeYears * 0.999);
    const activity = i % 7 === 0 ? created + (i % 13) * 3_600_000 : created;
    records.push({
      id: `c${c}-p${String(i).padStart(7, '0')}`,
      feed_id: feedId(c, 1 + ((i * 7919) % feedsPerCommunity)),
      // A few authors write most posts.
      author_profile_id: profileId(c, 1 + Math.floor((((i * 104729) % 1000) / 1000) ** 2 * authorsPerCommunity)),
      title: i % 5 === 0 ? '' : title,
      body_plaintext: everyThird !== undefined && i % 3 === 0 ? `${body} ${everyThird}` : body,
      content_created_at: new Date(created).toISOString(),
      latest_activity_at: new Date(activity).toISOString(),
      reactions_count: i % 11,
      comments_count: i % 4,
    });
  }
  return records;
}

async function openTarget(engine: Engine, name: string, postgresUrl: string): Promise<{ database: Database; url: string }> {
  if (engine === 'sqlite') {
    mkdirSync(corpusDir, { recursive: true });
    const path = join(corpusDir, `${name}.db`);
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
    const url = `sqlite:${path}`;
    return { database: openDatabase({ engine: 'sqlite', path }), url };
  }
  await ensurePostgresDatabase(postgresUrl);
  const schema = `bench_search_${name.replace('-', '_')}`;
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: postgresUrl });
  await client.connect();
  await client.query(`drop schema if exists "${schema}" cascade`);
  await client.end();
  await ensurePostgresSchema(postgresUrl, schema);
  const url = withSearchPath(postgresUrl, schema);
  return { database: openDatabase({ engine: 'postgres', url }, { schema }), url };
}

/**
 * The corpus of `total` posts on the engine, built unless a current one is cached; with `only`, a
 * database holding only that community of the corpus, exactly as it is there (the isolation figure).
 */
export async function searchCorpus(
  engine: Engine,
  total: number,
  postgresUrl: string,
  log: Log,
  only?: number,
  /** A plain word added to every third post (bench/fairness.ts: the corpus has no plain word that frequent). */
  everyThird?: string,
): Promise<SearchCorpus> {
  const name = `${only === undefined ? String(total) : `${total}-only${only}`}${everyThird ? `-${everyThird}` : ''}`;
  const path = join(corpusDir, `${engine}-${name}.meta`);
  if (existsSync(path)) {
    const meta = JSON.parse(readFileSync(path, 'utf8')) as SearchCorpus;
    if (meta.version === CORPUS_VERSION && (engine === 'postgres' || existsSync(join(corpusDir, `${name}.db`)))) return meta;
  }
  const started = performance.now();
  const fromSqlite = join(corpusDir, `sqlite-${name}.meta`);
  if (engine === 'postgres' && existsSync(fromSqlite)) {
    const source = JSON.parse(readFileSync(fromSqlite, 'utf8')) as SearchCorpus;
    if (source.version === CORPUS_VERSION) return copiedCorpus(source, name, postgresUrl, log, path, started);
  }
  const { database, url } = await openTarget(engine, name, postgresUrl);
  try {
    await migrateToLatest(database);
    database.sqlite?.pragma('cache_size = -262144');
    const counts = postsPerCommunity(total).map((count, c) => (only === undefined || only === c ? count : 0));
    const ids: string[] = [];
    const names = Array.from({ length: authorsPerCommunity }, (_, a) => authorName(a * 7 + 3));
    for (let c = 0; c < communities; c++) {
      if (counts[c] === 0) {
        ids.push('');
        continue;
      }
      ids.push((await createCommunity({ database, clock: systemClock }, { name: `Search ${c}`, plan: 'enterprise' })).id);
      await runImport(
        { database, clock: systemClock, communityId: ids[c] as string },
        {
          profiles: names.map((name, a) => ({ profile_id: profileId(c, a + 1), preferred_name: name, email: `p${a}@c${c}.example` })),
          feeds: Array.from({ length: feedsPerCommunity }, (_, f) => ({
            id: feedId(c, f + 1),
            label: `Feed ${f + 1}`,
            is_archived: f === feedsPerCommunity - 1,
            is_unlisted: f === feedsPerCommunity - 2,
          })),
        },
      );
    }
    for (let round = 0; round < roundsOfImport; round++) {
      for (let c = 0; c < communities; c++) {
        const count = counts[c] as number;
        if (count === 0) continue;
        const from = Math.floor((round * count) / roundsOfImport);
        const to = Math.floor(((round + 1) * count) / roundsOfImport);
        await runImport(
          { database, clock: systemClock, communityId: ids[c] as string },
          { posts: postRecords(c, from, to, count, names, everyThird) },
        );
      }
      log.line(`search corpus ${engine} ${name}: round ${round + 1}/${roundsOfImport}`);
    }
    if (engine === 'postgres') await sql`analyze`.execute(database.db);
    const meta: SearchCorpus = {
      version: CORPUS_VERSION,
      engine,
      databaseUrl: url,
      totalPosts: counts.reduce((a, b) => a + b, 0),
      communityIds: ids.filter(Boolean),
      postsPerCommunity: counts.filter((count) => count > 0),
      buildSeconds: Math.round((performance.now() - started) / 100) / 10,
    };
    writeFileSync(path, JSON.stringify(meta));
    return meta;
  } finally {
    await database.close();
  }
}

/** Tables left out of the copy: the migrator's, and the search index (each engine's own; built again on PostgreSQL). */
const notCopied = /^(kysely_|post_search)/;

/**
 * The PostgreSQL corpus as a copy of the SQLite one's rows (the same rows the import would write),
 * its search index then built by the index's writer (rebuildSearchIndex, as `search reindex` does).
 */
async function copiedCorpus(source: SearchCorpus, name: string, postgresUrl: string, log: Log, metaPath: string, started: number) {
  const { database, url } = await openTarget('postgres', name, postgresUrl);
  try {
    await migrateToLatest(database);
    const schema = `bench_search_${name.replace('-', '_')}`;
    const sqlite = new (sqliteDriver())(join(corpusDir, `${name}.db`), { readonly: true });
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: postgresUrl });
    await client.connect();
    try {
      await client.query(`set search_path to "${schema}"`);
      await client.query('set session_replication_role = replica');
      // SQLite's own tables (FTS5 shadow tables of a virtual table) have no PostgreSQL counterpart.
      const onPostgres = new Set(
        (
          await client.query<{ name: string }>('select table_name as name from information_schema.tables where table_schema = $1', [schema])
        ).rows.map((row) => row.name),
      );
      const tables = (
        sqlite
          .prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by rowid")
          .pluck()
          .all() as string[]
      ).filter((table) => !notCopied.test(table) && onPostgres.has(table));
      for (const table of tables) {
        const columns = (sqlite.prepare(`pragma table_info("${table}")`).all() as { name: string }[]).map((column) => `"${column.name}"`);
        const perInsert = Math.max(1, Math.floor(60_000 / columns.length));
        let batch: unknown[][] = [];
        const flush = async () => {
          if (batch.length === 0) return;
          const values: unknown[] = [];
          const tuples = batch.map((row) => `(${row.map((value) => `$${values.push(value)}`).join(', ')})`);
          await client.query(`insert into "${table}" (${columns.join(', ')}) values ${tuples.join(', ')}`, values);
          batch = [];
        };
        for (const row of sqlite
          .prepare(`select ${columns.join(', ')} from "${table}"`)
          .raw()
          .iterate() as IterableIterator<unknown[]>) {
          batch.push(row);
          if (batch.length >= perInsert) await flush();
        }
        await flush();
        log.line(`search corpus postgres ${name}: ${table} copied`);
      }
    } finally {
      await client.end();
      sqlite.close();
    }
    for (const communityId of source.communityIds) {
      await database.db.transaction().execute((tx) => rebuildSearchIndex({ tx, communityId }));
      log.line(`search corpus postgres ${name}: ${communityId} indexed`);
    }
    await sql`analyze`.execute(database.db);
    const meta: SearchCorpus = {
      ...source,
      engine: 'postgres',
      databaseUrl: url,
      buildSeconds: Math.round((performance.now() - started) / 100) / 10,
    };
    writeFileSync(metaPath, JSON.stringify(meta));
    return meta;
  } finally {
    await database.close();
  }
}

/**
 * A community of 10k seeded events (and no posts) added once to a corpus' database: the uncached
 * event list of bench/search.ts's tail figures and of key B in bench/fairness.ts.
 */
export async function eventsCommunity(database: Database): Promise<string> {
  const found = await sql<{ id: string }>`select id from communities where name = 'Fairness B'`.execute(database.db);
  if (found.rows[0]) return found.rows[0].id;
  const community = await createCommunity({ database, clock: systemClock }, { name: 'Fairness B', plan: 'enterprise' });
  await runSeed(database, systemClock, {
    communityId: community.id,
    seed: 'fairness-b',
    anchor: Date.parse('2026-11-01T00:00:00Z'),
    counts: { profiles: 1000, members: 0, groups: 0, feeds: 3, posts: 0, events: 10_000 },
  });
  return community.id;
}
