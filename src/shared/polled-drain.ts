import type { DurationMs } from './time.js';

/**
 * A queue drain run in the background: at once when woken (work was just stored), else every
 * `pollMs` (work of other instances, retries coming due). Never runs twice at once; a wake during
 * a run runs it again right after, so nothing stored meanwhile waits for the next poll.
 */
export class PolledDrain {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = true;

  constructor(
    private readonly drain: () => Promise<void>,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Whether stop() was called (a drain checks it between items). */
  get isStopped(): boolean {
    return this.stopped;
  }

  start(pollMs: DurationMs): void {
    this.stopped = false;
    this.timer = setInterval(() => this.wake(), pollMs);
    this.timer.unref();
    this.wake();
  }

  /** Drains now, or right after the run in progress. */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.drain()
      .catch(this.onError)
      .finally(() => {
        this.running = null;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
  }

  /** Resolves when no run is in progress (tests). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  /** Stops polling; the run in progress finishes. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}
