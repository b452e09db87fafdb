import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { sqliteDriverName } from './sqlite-driver.js';

/**
 * The thread's code, plain CommonJS (an `eval` worker: no file to resolve in src under tsx and in
 * dist alike): its own read-only connection to the database file, one prepared statement per SQL
 * text, a message per statement run.
 */
const threadCode = `
const { parentPort, workerData } = require('node:worker_threads');
const Driver = require(workerData.driverPath);
const db = new Driver(workerData.path, { readonly: true, fileMustExist: true });
db.pragma('busy_timeout = ' + workerData.busyTimeoutMs);
const statements = new Map();
// Opened on the first checkpoint asked for: copying the WAL into the database file needs a
// connection that may write (it writes nothing else).
let checkpointer = null;
parentPort.on('message', ({ id, sql, values, checkpoint }) => {
  try {
    if (checkpoint) {
      if (checkpointer === null) {
        checkpointer = new Driver(workerData.path, { fileMustExist: true });
        // Only RESTART waits (for readers of the WAL, the server's writes held meanwhile): briefly.
        checkpointer.pragma('busy_timeout = ' + workerData.restartWaitMs);
      }
      const [row] = checkpointer.pragma(checkpoint === 'RESTART' ? 'wal_checkpoint(RESTART)' : 'wal_checkpoint(PASSIVE)');
      parentPort.postMessage({ id, rows: [row] });
      return;
    }
    let statement = statements.get(sql);
    if (!statement) {
      statement = db.prepare(sql);
      statements.set(sql, statement);
    }
    parentPort.postMessage({ id, rows: statement.all(...values) });
  } catch (error) {
    parentPort.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
  }
});
`;

/**
 * How long a RESTART checkpoint waits for readers of the WAL (another process's, since the server's
 * writes are held meanwhile): past it the checkpoint gives up, and the next one tries again.
 */
const restartWaitMs = 100;

interface Reply {
  id: number;
  rows?: unknown[];
  error?: string;
}

/**
 * Reads of a SQLite database file run on a thread of their own, off the event loop. A statement on
 * the main connection holds the event loop while it runs: a search of a word in a third of 40k
 * posts holds it ~20 ms, and every other request read meanwhile waits (docs/performance.md,
 * *Fairness*). The thread's connection reads what is committed (WAL), as the main connection does
 * outside a write. Started on first use, one per database; `close` ends it. A server's WAL
 * checkpoints run on the same thread (`checkpoint`).
 */
export class SqliteReadThread {
  private worker: Worker | null = null;
  private nextId = 0;
  private readonly pending = new Map<number, { resolve: (rows: unknown[]) => void; reject: (error: Error) => void }>();

  constructor(
    private readonly path: string,
    private readonly busyTimeoutMs: number,
  ) {}

  all(sql: string, values: readonly unknown[]): Promise<unknown[]> {
    return this.ask({ sql, values });
  }

  /**
   * A checkpoint of the WAL, run on the thread with a connection of its own: the copy and its
   * fsyncs stay off the event loop (src/db/sqlite-checkpoints.ts). PASSIVE copies as much as it can
   * without waiting for the writer or any reader; RESTART copies everything and waits (at most
   * `restartWaitMs`) until no reader uses the WAL, so that the next write starts it over.
   */
  async checkpoint(mode: 'PASSIVE' | 'RESTART' = 'PASSIVE'): Promise<{ busy: number; log: number; checkpointed: number }> {
    const [row] = await this.ask({ checkpoint: mode });
    return row as { busy: number; log: number; checkpointed: number };
  }

  private ask(message: { sql: string; values: readonly unknown[] } | { checkpoint: 'PASSIVE' | 'RESTART' }): Promise<unknown[]> {
    const worker = this.started();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      // Kept alive while it has a read to answer (nothing else may hold the loop: a test's inject); idle, it holds nothing.
      if (this.pending.size === 0) worker.ref();
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ id, ...message });
    });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    if (worker) await worker.terminate();
    this.failAll(new Error('the database is closed'));
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const driverPath = createRequire(import.meta.url).resolve(sqliteDriverName());
    const worker = new Worker(threadCode, {
      eval: true,
      workerData: { path: this.path, driverPath, busyTimeoutMs: this.busyTimeoutMs, restartWaitMs },
      // tsx and other loaders of the parent are not needed by plain CommonJS.
      execArgv: [],
    });
    worker.on('message', (reply: Reply) => {
      const waiting = this.pending.get(reply.id);
      if (!waiting) return;
      this.pending.delete(reply.id);
      if (this.pending.size === 0) worker.unref();
      if (reply.error !== undefined) waiting.reject(new Error(reply.error));
      else waiting.resolve(reply.rows ?? []);
    });
    worker.on('error', (error) => {
      this.worker = null;
      this.failAll(error);
    });
    worker.on('exit', () => {
      if (this.worker === worker) this.worker = null;
      this.failAll(new Error('the read thread stopped'));
    });
    worker.unref();
    this.worker = worker;
    return worker;
  }

  private failAll(error: Error): void {
    for (const { reject } of this.pending.values()) reject(error);
    this.pending.clear();
  }
}
