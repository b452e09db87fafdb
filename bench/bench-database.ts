import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDatabaseUrl } from '../src/config.js';
import { type Database, ensurePostgresSchema, openDatabase } from '../src/db/database.js';

/**
 * A database for a standalone bench: a PostgreSQL schema of its own when BENCH_DATABASE_URL is set,
 * else a SQLite file in a temp directory; `url` reaches it from a server process.
 */
export async function openBenchDatabase(name: string): Promise<{ database: Database; url: string; cleanup: () => Promise<void> }> {
  const pgUrl = process.env.BENCH_DATABASE_URL;
  if (pgUrl) {
    const schema = `bench_${name}_${randomBytes(4).toString('hex')}`;
    await ensurePostgresSchema(pgUrl, schema);
    const url = `${pgUrl}${pgUrl.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
    const database = openDatabase(parseDatabaseUrl(url) as { engine: 'postgres'; url: string }, { schema });
    return { database, url, cleanup: () => database.close() };
  }
  const dir = mkdtempSync(join(tmpdir(), `bench-${name}-`));
  const url = `sqlite:${join(dir, 'bench.db')}`;
  const database = openDatabase(parseDatabaseUrl(url));
  return {
    database,
    url,
    cleanup: async () => {
      await database.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
