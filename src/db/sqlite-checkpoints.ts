import type SqliteDatabase from 'better-sqlite3';
import type { SqliteReadThread } from './sqlite-read-thread.js';

/** How often the server looks how much of its WAL is not yet in the database file. */
const pollMs = 250;
/** SQLite's own threshold (pages of WAL), kept: a checkpoint as often as before, only elsewhere. */
const checkpointAtFrames = 1000;
/**
 * A server's WAL checkpoints, off the event loop. By default SQLite checkpoints at the end of the
 * commit that grows the WAL past 1,000 pages, on the committing connection: the server's event
 * loop, which then copies the WAL into the database file and fsyncs both while every other request
 * waits (measured under member adds: 27 fsyncs a second on the main thread; with the disk busy
 * writing back other files, a request held 990 ms: docs/performance.md, "Checkpoints off the event
 * loop"). So the server's connection never checkpoints (`wal_autocheckpoint = 0`): every 250 ms the
 * server reads from the WAL index how many frames are not yet in the database file, and past
 * SQLite's own 1,000 a PASSIVE checkpoint (it waits for no writer and no reader) runs on the read
 * thread's own connection. The thread is started by the first one, so a server that writes little
 * never pays its memory (~11 MB). If the thread cannot checkpoint, the connection goes back to
 * SQLite's own checkpoints: a WAL must not grow without end.
 */
export class SqliteCheckpoints {
  private readonly timer: NodeJS.Timeout;
  private running = false;
  private stopped = false;

  constructor(
    private readonly sqlite: SqliteDatabase.Database,
    /** Frames of the WAL not yet in the database file (SqliteCommitWatch.framesNotCopied: the WAL index). */
    private readonly framesNotCopied: () => number,
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
    if (this.running || this.stopped || this.framesNotCopied() < checkpointAtFrames) return;
    this.running = true;
    try {
      await this.thread.checkpoint();
    } catch {
      if (this.stopped) return;
      this.stop();
      this.sqlite.pragma(`wal_autocheckpoint = ${checkpointAtFrames}`);
    } finally {
      this.running = false;
    }
  }
}
