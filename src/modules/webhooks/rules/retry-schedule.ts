/*
 * When a failed delivery is tried again: after attempt n fails, wait retryDelaysMs[n-1], give or
 * take 20% (jitter, so that the deliveries a receiver's outage piled up do not all come back in the
 * same second). Ten attempts over about three days (71 h 35 min before jitter); after the tenth
 * the delivery is failed. docs/webhooks.md shows the table.
 */

import { type DurationMs, durationMs } from '../../../shared/time.js';

const second = 1000;
const minute = 60 * second;
const hour = 60 * minute;
export const dayMs = 24 * hour;

/** How long delivered and failed deliveries are kept by default (WEBHOOK_RETENTION_DAYS). */
export const defaultRetentionDays = 30;

export const retryDelaysMs: readonly number[] = [
  5 * second,
  5 * minute,
  30 * minute,
  2 * hour,
  5 * hour,
  10 * hour,
  14 * hour,
  20 * hour,
  20 * hour,
];

/** Attempts a delivery gets in all: the first, then one per delay. */
export const maxAttempts = retryDelaysMs.length + 1;

/** The length of the whole schedule: an endpoint failing for longer than this is disabled. */
export const scheduleSpanMs = retryDelaysMs.reduce((sum, delay) => sum + delay, 0);

const jitter = 0.2;

/** Milliseconds until the next attempt after `attempts` failed ones, or null when there is none left. */
export function retryDelay(attempts: number, random: () => number = Math.random): DurationMs | null {
  const base = retryDelaysMs[attempts - 1];
  if (base === undefined) return null;
  return durationMs(Math.round(base * (1 - jitter + 2 * jitter * random())));
}
