import { userInfo } from 'node:os';
import { type Config, loadConfig } from '../config.js';
import { type Database, migrateToLatest, openDatabase } from '../db/database.js';
import type { Actor } from '../shared/activity.js';

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

/**
 * Who the activity log names for an operator command: the CLI, labelled with the operating-system
 * user running it (no id: the CLI has no key). A user the system cannot name is `unknown`.
 */
export function cliActor(): Actor {
  let label: string;
  try {
    label = userInfo().username;
  } catch {
    label = process.env.USER ?? process.env.LOGNAME ?? 'unknown';
  }
  return { type: 'cli', id: null, label };
}
