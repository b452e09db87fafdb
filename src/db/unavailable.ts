/**
 * Which errors mean "the database cannot serve now" (an outage, a failover, a timeout, a full disk)
 * rather than a fault of the request or of the code: those answer 503 database_unavailable with
 * Retry-After instead of 500, so a client can tell an outage from a bug and retry (docs/operations.md).
 */

/** Socket errors of a connection to PostgreSQL (refused, reset, unreachable, timed out). */
const socketCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * SQLSTATEs of PostgreSQL that say the server cannot serve: class 08 (connection exception), 53
 * (insufficient resources: disk full, out of memory, too many connections), 57P01-57P05 (shut down,
 * crashed, starting, idle session ended), 57014 (statement_timeout cancelled the query), 58030 (I/O error).
 */
const unavailableStates = /^(08...|53...|57P0[1-5]|57014|58030)$/;

/** node-postgres and pg-pool report a lost, closed or silent connection with these messages (no code). */
const pgMessages = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  // node-postgres' own connect timeout (connectMs), which a connection accepted but never answered
  // (a partition) ends by; it reaches pg-pool's caller as it is when the pool's wait is longer.
  'timeout expired',
  'Query read timeout',
  'is not queryable',
  'Connection ended unexpectedly',
  'Cannot use a pool after calling end on the pool',
  // Kysely, once the database has been closed by a stop with requests still in flight.
  'driver has already been destroyed',
];

/**
 * better-sqlite3 codes of a database that is locked past busy_timeout, or cannot be read or written
 * (I/O error, full disk or file-size limit, file gone or unopenable).
 */
const sqliteCode = /^SQLITE_(BUSY|LOCKED|IOERR|FULL|CANTOPEN|PROTOCOL|NOLFS)(_|$)/;

/** True when the error (or one it wraps, as `cause`) means the database cannot serve now. */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let current = error, depth = 0; typeof current === 'object' && current !== null && depth < 5; depth++) {
    const { code, message } = current as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && (socketCodes.has(code) || unavailableStates.test(code) || sqliteCode.test(code))) return true;
    if (code === undefined && typeof message === 'string' && pgMessages.some((text) => message.includes(text))) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/** True when a PostgreSQL connection that raised the error may still be in a known state (a SQL error from the server). */
export function isServerAnswer(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && !/^(08|57P0)/.test(code);
}
