import { createRequire } from 'node:module';
import type SqliteDatabase from 'better-sqlite3';

const require = createRequire(import.meta.url);

/**
 * better-sqlite3 for this Node.js line. Version 12 derives its objects from node::ObjectWrap, which
 * since Node 24.19 aborts the process when a statement is garbage-collected outside a JavaScript
 * context (WiseLibs/better-sqlite3#1515); version 13 is built on Node-API and does not, but
 * requires Node >= 22 (it crashes on 20). So both are installed (13 as the optional
 * `better-sqlite3-napi`, which npm skips on Node 20) and each line loads its own (docs/dependencies.md).
 */
export function sqliteDriverName(nodeVersion = process.versions.node): 'better-sqlite3' | 'better-sqlite3-napi' {
  const major = Number(nodeVersion.split('.')[0]);
  if (major < 22) return 'better-sqlite3';
  try {
    require.resolve('better-sqlite3-napi');
    return 'better-sqlite3-napi';
  } catch {
    // Not installed (an install that skipped optional dependencies): 12 still runs on 22 and on 24 before 24.19.
    return 'better-sqlite3';
  }
}

let driver: typeof SqliteDatabase | undefined;

/** The better-sqlite3 constructor of this Node.js line, loaded once. */
export function sqliteDriver(): typeof SqliteDatabase {
  driver ??= require(sqliteDriverName()) as typeof SqliteDatabase;
  return driver;
}
