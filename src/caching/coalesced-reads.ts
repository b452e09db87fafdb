/** One read of a key: its result, and the read that waits for it to finish. */
interface Round<T> {
  result: Promise<T>;
  next: Promise<T> | undefined;
}

/**
 * Reads of a value that must be fresh, shared between concurrent callers without losing
 * freshness. A caller may only use a read *started after it asked*: a read already in flight may
 * have been sent before a write the caller knows of (one acknowledged to its client by another
 * instance). So a caller that finds a read in flight waits for the next one, which starts when the
 * current one ends and serves every caller that asked meanwhile. Under load that is one read per
 * batch of callers instead of one per caller; a caller waits at most two reads.
 */
export class CoalescedReads<T> {
  private readonly inFlight = new Map<string, Round<T>>();

  constructor(private readonly readNow: (key: string) => Promise<T>) {}

  read(key: string): Promise<T> {
    const current = this.inFlight.get(key);
    if (!current) return this.start(key);
    if (!current.next) {
      const startNext = () => this.start(key);
      current.next = current.result.then(startNext, startNext);
    }
    return current.next;
  }

  private start(key: string): Promise<T> {
    const round: Round<T> = { result: this.readNow(key), next: undefined };
    this.inFlight.set(key, round);
    const done = (): void => {
      if (this.inFlight.get(key) === round) this.inFlight.delete(key);
    };
    round.result.then(done, done);
    return round.result;
  }
}
