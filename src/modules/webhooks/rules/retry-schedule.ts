/*
 * When a failed delivery is tried again: after attempt n fails, wait retryDelaysMs[n-1], give or
 * take 20% (jitter, so that the deliveries a receiver's outage piled up do not all come back in the
 * same second). Ten attempts over about three days (71 h 35 min before jitter); after the tenth
 * the delivery is failed. docs/webhooks.md shows the table.
 */

import { type DurationMs, durationMs } from '../../../shared/time.js';

const second = durationMs(1000);
const minute = durationMs(60 * second);
const hour = durationMs(60 * minute);
export const dayMs = durationMs(24 * hour);

export const retryDelaysMs: readonly DurationMs[] = [
  durationMs(5 * second),
  durationMs(5 * minute),
  durationMs(30 * minute),
  durationMs(2 * hour),
  durationMs(5 * hour),
  durationMs(10 * hour),
  durationMs(14 * hour),
  durationMs(20 * hour),
  durationMs(20 * hour),
];

/** Attempts a delivery gets in all: the first, then one per delay. */
export const maxAttempts = retryDelaysMs.length + 1;

/** The length of the whole schedule: an endpoint failing for longer than this is disabled. */
export const scheduleSpanMs: DurationMs = durationMs(retryDelaysMs.reduce((sum, delay) => sum + delay, 0));

const jitter = 0.2;

/** Milliseconds until the next attempt after `attempts` failed ones, or null when there is none left. */
export function retryDelay(attempts: number, random: () => number = Math.random): DurationMs | null {
  const base = retryDelaysMs[attempts - 1];
  if (base === undefined) return null;
  return durationMs(Math.round(base * (1 - jitter + 2 * jitter * random())));
}
