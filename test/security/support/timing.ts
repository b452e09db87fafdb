// Timing comparison for the existence oracle: two kinds of request, interleaved, compared by median.
import { performance } from 'node:perf_hooks';

export interface TimingComparison {
  medianA: number;
  medianB: number;
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};

/**
 * Runs `a` and `b` `rounds` times each, alternating (so that drift, GC and caches hit both alike),
 * after a warm-up, and returns the median duration of each in milliseconds.
 */
export async function compareTimings(a: () => Promise<unknown>, b: () => Promise<unknown>, rounds = 30): Promise<TimingComparison> {
  for (let i = 0; i < 5; i++) {
    await a();
    await b();
  }
  const timesA: number[] = [];
  const timesB: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const [first, second, firstTimes, secondTimes] = i % 2 ? [a, b, timesA, timesB] : [b, a, timesB, timesA];
    let started = performance.now();
    await first();
    firstTimes.push(performance.now() - started);
    started = performance.now();
    await second();
    secondTimes.push(performance.now() - started);
  }
  return { medianA: median(timesA), medianB: median(timesB) };
}

/**
 * True when two medians are indistinguishable for our purpose: within a factor of 2, or within
 * 1.5 ms of each other (below that, scheduler noise on a shared CI machine dominates). A lookup
 * that answered "exists elsewhere" through a different path (an extra query, a different index)
 * would show as a consistent multiple, which is what this catches.
 */
export function indistinguishable({ medianA, medianB }: TimingComparison): boolean {
  const [low, high] = medianA < medianB ? [medianA, medianB] : [medianB, medianA];
  return high - low < 1.5 || high <= low * 2;
}

/**
 * Compares up to `attempts` times and returns the first indistinguishable comparison, or the last
 * one: a systematic difference (another query path) shows in every attempt, a burst of load on a
 * shared machine rarely in three in a row.
 */
export async function settledComparison(a: () => Promise<unknown>, b: () => Promise<unknown>, attempts = 3): Promise<TimingComparison> {
  let last = await compareTimings(a, b);
  for (let attempt = 1; attempt < attempts && !indistinguishable(last); attempt++) last = await compareTimings(a, b);
  return last;
}
