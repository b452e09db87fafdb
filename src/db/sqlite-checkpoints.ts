import { stat } from 'node:fs/promises';
import type SqliteDatabase from 'better-sqlite3';
import type { SqliteReadThread } from './sqlite-read-thread.js';

/** How often the server looks whether its WAL was written since the last checkpoint. */
const pollMs = 250;
/** What SQLite checkpoints at by default (pages), restored if the thread cannot checkpoint. */
const defaultAutocheckpointPages = 1000;

/**
 * A server's WAL checkpoints, off the event loop. By default SQLite checkpoints at the end of the
 * commit that grows the WAL past 1,000 pages, on the committing connection: the server's event
 * loop, which then copies the WAL into the database file and fsyncs both while every other request
 * waits (measured under member adds: 27 fsyncs a second on the main thread; with the disk busy
 * writing back other files, a request held 990 ms: docs/performance.md, "Checkpoints off the event
 * loop"). So the server's connection never checkpoints (`wal_autocheckpoint = 0`), and a PASSIVE
 * checkpoint (it waits for no writer and no reader) runs on the read thread's own connection
 * whenever the WAL was written since the last complete one. If the thread cannot checkpoint, the
 * connection goes back to SQLite's own checkpoints: a WAL must not grow without end.
 */
export class SqliteCheckpoints {
  private readonly timer: NodeJS.Timeout;
  /** The WAL's modification time when the last complete checkpoint began. */
  private checkpointedAt = 0;
  private running = false;
  private stopped = false;

  constructor(
    private readonly sqlite: SqliteDatabase.Database,
    private readonly walPath: string,
    private readonly thread: SqliteReadThread,
  ) {
    sqlite.pragma('wal_autocheckpoint = 0');
    this.timer = setInterval(() => void this.tick(), pollMs);
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
  }

  private async tick(): Promise<void> {
    if (this.running || this.stopped) return;
    this.running = true;
    try {
      const written = await this.walWrittenAt();
      if (written === null || written === this.checkpointedAt) return;
      const { log, checkpointed } = await this.thread.checkpoint();
      // Frames left (a reader still on them): tried again at the next look, written since or not.
      if (checkpointed >= log) this.checkpointedAt = written;
    } catch {
      if (this.stopped) return;
      this.stop();
      this.sqlite.pragma(`wal_autocheckpoint = ${defaultAutocheckpointPages}`);
    } finally {
      this.running = false;
    }
  }

  private async walWrittenAt(): Promise<number | null> {
    try {
      return (await stat(this.walPath)).mtimeMs;
    } catch (error) {
      // No WAL (nothing written yet, or the last connection closed it): nothing to checkpoint.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }
}
