import { closeSync, openSync, readSync } from 'node:fs';
import { endianness } from 'node:os';
import type SqliteDatabase from 'better-sqlite3';
import type { SqliteReadThread } from './sqlite-read-thread.js';

/** How often the server looks how much of its WAL is not yet in the database file. */
const pollMs = 250;
/** SQLite's own threshold (pages of WAL), kept: a checkpoint as often as before, only elsewhere. */
const checkpointAtFrames = 1000;
/**
 * Where the WAL index (`-shm`, https://www.sqlite.org/walformat.html) keeps the last frame of the
 * WAL (`mxFrame`, in the first copy of its header) and how many frames are already copied into the
 * database file (`nBackfill`, first field of the checkpoint information after both header copies):
 * 32-bit integers in the machine's byte order.
 */
const mxFrameOffset = 16;
const nBackfillOffset = 96;
const readUInt32 = (buffer: Buffer, offset: number): number =>
  endianness() === 'LE' ? buffer.readUInt32LE(offset) : buffer.readUInt32BE(offset);

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
  private readonly index = Buffer.alloc(nBackfillOffset + 4);
  private fd: number | null = null;
  private running = false;
  private stopped = false;

  constructor(
    private readonly sqlite: SqliteDatabase.Database,
    private readonly path: string,
    private readonly thread: SqliteReadThread,
  ) {
    sqlite.pragma('wal_autocheckpoint = 0');
    this.timer = setInterval(() => void this.tick(), pollMs);
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
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

  /** Frames of the WAL not yet copied into the database file (0 when there is no WAL index to read). */
  private framesNotCopied(): number {
    try {
      this.fd ??= openSync(`${this.path}-shm`, 'r');
      if (readSync(this.fd, this.index, 0, this.index.length, 0) !== this.index.length) return 0;
    } catch {
      return 0;
    }
    // Read without SQLite's locks: a commit may be half written, which at worst starts a
    // checkpoint a look early or late.
    return Math.max(0, readUInt32(this.index, mxFrameOffset) - readUInt32(this.index, nBackfillOffset));
  }
}
