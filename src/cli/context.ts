import { type Config, loadConfig } from '../config.js';
import { type Database, migrateToLatest, openDatabase } from '../db/database.js';

/** Opens the configured database, brought up to date, for the duration of one command. */
export async function withDatabase<T>(run: (database: Database, config: Config) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const database = openDatabase(config.database, { poolSize: 2 });
  try {
    await migrateToLatest(database);
    return await run(database, config);
  } finally {
    await database.close();
  }
}
