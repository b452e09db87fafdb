import type SqliteDatabase from 'better-sqlite3';
import type { WalFrames } from './sqlite-commit-watch.js';
import type { SqliteReadThread } from './sqlite-read-thread.js';

/** How often the server looks how much of its WAL is not yet in the database file. */
const pollMs = 250;
/** SQLite's own threshold (pages of WAL), kept: a checkpoint as often as before, only elsewhere. */
const checkpointAtFrames = 1000;
/**
 * The WAL's length (pages) past which it is started over from its beginning: two of the WAL index's
 * hash tables (4,096 frames each), which every read of a page not in the WAL searches through.
 */
const restartAtFrames = 8192;
/**
 * A start over that held the writes longer than this (the disk is behind: its fsyncs wait)
 * quadruples the length the WAL may reach before the next one, up to `longestWalFrames` (512 MB); a
 * quick one halves it back. Under a disk busy writing back other files a hold lasted up to 1.1 s
 * (member adds with 8 GB of `dd` beside them), and a longer WAL is the lesser harm for a while.
 */
const slowHoldMs = 250;
const longestWalFrames = 16 * restartAtFrames;
/**
 * The WAL file's size after the WAL started over: a burst of writes (an import) leaves no larger
 * file behind than this (SQLite truncates it at the first commit after the start over).
 */
const walSizeLimitBytes = restartAtFrames * 4096;

/**
 * A server's WAL checkpoints, off the event loop. By default SQLite checkpoints at the end of the
 * commit that grows the WAL past 1,000 pages, on the committing connection: the server's event
 * loop, which then copies the WAL into the database file and fsyncs both while every other request
 * waits (measured under member adds: 27 fsyncs a second on the main thread; with the disk busy
 * writing back other files, a request held 990 ms: docs/performance.md, "Checkpoints off the event
 * loop"). So the server's connection never checkpoints (`wal_autocheckpoint = 0`): every 250 ms the
 * server reads from the WAL index how many frames are not yet in the database file, and past
 * SQLite's own 1,000 the read thread's own connection checkpoints, in two steps:
 *
 * - PASSIVE (it waits for no writer and no reader), while the server goes on writing: the bulk of
 *   the copy and its fsyncs;
 * - once the WAL is 8,192 frames long, RESTART with the server's connection held (`holdWrites`:
 *   its transactions queue, the event loop runs on): the frames written during the first step, so
 *   that the WAL is copied whole. Only a writer that finds the WAL copied whole starts it over
 *   from its beginning; under writes that never pause none ever did, and the WAL grew by every page
 *   written (5.4 GB in a minute of member adds, each 40% dearer by then: docs/performance.md,
 *   "The WAL that never started over"). The hold lasts the copy of what the first step left and two
 *   fsyncs (50-150 ms on this machine under member adds; up to 1.1 s with the disk behind, so then
 *   the WAL may grow longer before the next: `slowHoldMs`); more PASSIVE steps first did not
 *   shorten it (each lasts its fsyncs, and the server writes as much again meanwhile).
 *
 * The thread is started by the first checkpoint, so a server that writes little never pays its
 * memory (~11 MB). If the thread cannot checkpoint, the connection goes back to SQLite's own
 * checkpoints: a WAL must not grow without end.
 */
export class SqliteCheckpoints {
  private readonly timer: NodeJS.Timeout;
  private running = false;
  private stopped = false;
  private restartAt = restartAtFrames;

  constructor(
    private readonly sqlite: SqliteDatabase.Database,
    /** The WAL's length and what of it is not yet in the database file (SqliteCommitWatch.walFrames: the WAL index). */
    private readonly walFrames: () => WalFrames,
    private readonly thread: SqliteReadThread,
    /** Runs `step` while the server's connection can start no write (holdSqliteWrites). */
    private readonly holdWrites: <T>(step: () => Promise<T>) => Promise<T>,
  ) {
    sqlite.pragma('wal_autocheckpoint = 0');
    sqlite.pragma(`journal_size_limit = ${walSizeLimitBytes}`);
    this.timer = setInterval(() => void this.tick(), pollMs);
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
  }

  private async tick(): Promise<void> {
    if (this.running || this.stopped || this.walFrames().notCopied < checkpointAtFrames) return;
    this.running = true;
    try {
      await this.thread.checkpoint('PASSIVE');
      if (this.stopped || this.walFrames().inWal < this.restartAt) return;
      const held = performance.now();
      await this.holdWrites(() => this.thread.checkpoint('RESTART'));
      this.restartAt =
        performance.now() - held > slowHoldMs
          ? Math.min(longestWalFrames, this.restartAt * 4)
          : Math.max(restartAtFrames, this.restartAt / 2);
    } catch {
      if (this.stopped) return;
      this.stop();
      this.sqlite.pragma(`wal_autocheckpoint = ${checkpointAtFrames}`);
    } finally {
      this.running = false;
    }
  }
}
