import { closeSync, openSync, readSync } from 'node:fs';
import { endianness } from 'node:os';

/**
 * Both copies of the WAL-index header, at the start of the `-shm` file (unix VFS:
 * https://www.sqlite.org/walformat.html, "The WAL-Index Header"). The checkpoint information that
 * follows them is left out: readers write their read marks there.
 */
const headerBytes = 96;
/**
 * The WAL's last frame (`mxFrame`, in the first copy of the header) and how many frames are already
 * copied into the database file (`nBackfill`, the first field of the checkpoint information after
 * both copies): 32-bit integers in the machine's byte order.
 */
const mxFrameOffset = 16;
const nBackfillOffset = 96;
const readUInt32 = (buffer: Buffer, offset: number): number =>
  endianness() === 'LE' ? buffer.readUInt32LE(offset) : buffer.readUInt32BE(offset);

/** How long the WAL is, in frames (pages), and how much of it is not yet in the database file. */
export interface WalFrames {
  inWal: number;
  notCopied: number;
}

/** What walFrames answers when there is no WAL index to read. */
export const noFrames: WalFrames = { inWal: 0, notCopied: 0 };

/**
 * Tells whether any connection to a SQLite database in WAL mode, in this process or another, may
 * have committed since the last look, for the price of one 96-byte read instead of the read
 * transaction a query needs (two fcntl locks and an fstat: ~20 µs on these machines, most of what
 * a cached answer costs the database; docs/performance.md).
 *
 * Every commit rewrites the WAL-index header that all connections share (its change counter, last
 * frame, frame checksums and salts), and a checkpoint that restarts the WAL changes the salts. The
 * header is read without SQLite's locks, so a read that races a commit may see it half written: it
 * then differs from the last one seen, which costs only a real read. A header byte for byte equal
 * to the last one means that no commit became visible in between.
 * `test/server/writes-from-other-processes.test.ts` checks this against writes from other
 * processes, so an SQLite upgrade that changed the layout would fail the suite rather than serve
 * stale answers.
 */
export class SqliteCommitWatch {
  private readonly current = Buffer.alloc(headerBytes);
  private readonly last = Buffer.alloc(headerBytes);
  private readonly frames = Buffer.alloc(nBackfillOffset + 4);
  private epoch = 0;

  private constructor(private readonly fd: number) {}

  /** The watch of the database at `path`, or null when it has no WAL index to watch (in memory, not WAL). */
  static open(path: string): SqliteCommitWatch | null {
    try {
      return new SqliteCommitWatch(openSync(`${path}-shm`, 'r'));
    } catch {
      return null;
    }
  }

  /** A number that stays the same from one call to the next only while nothing was committed. */
  epochNow(): number {
    let read = 0;
    try {
      read = readSync(this.fd, this.current, 0, headerBytes, 0);
    } catch {
      read = 0;
    }
    if (read !== headerBytes || !this.current.equals(this.last)) {
      this.current.copy(this.last);
      this.epoch++;
    }
    return this.epoch;
  }

  /**
   * The WAL's length in frames and how many of them are not yet copied into the database file
   * (src/db/sqlite-checkpoints.ts), zeros when the index cannot be read. Read without SQLite's
   * locks: a commit half written starts a checkpoint a look early or late, no worse.
   */
  walFrames(): WalFrames {
    try {
      if (readSync(this.fd, this.frames, 0, this.frames.length, 0) !== this.frames.length) return noFrames;
    } catch {
      return noFrames;
    }
    const inWal = readUInt32(this.frames, mxFrameOffset);
    return { inWal, notCopied: Math.max(0, inWal - readUInt32(this.frames, nBackfillOffset)) };
  }

  close(): void {
    closeSync(this.fd);
  }
}
