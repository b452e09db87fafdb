import { type DurationMs, durationMs } from './time.js';

const unitMs = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** A whole number of days as a duration (a setting counted in days). */
export const daysMs = (days: number): DurationMs => durationMs(days * unitMs.d);

/** Longest duration accepted (100 years): beyond it an instant would leave the range both engines store exactly. */
const maxMs = 100 * 365 * unitMs.d;

/**
 * Milliseconds of an operator's duration (`30s`, `15m`, `24h`, `90d`: a positive whole number and
 * one unit), or null when the text is not one.
 */
export function parseDuration(text: string): DurationMs | null {
  const match = /^([1-9]\d{0,9})([smhd])$/.exec(text.trim());
  if (!match) return null;
  const ms = Number(match[1]) * unitMs[match[2] as keyof typeof unitMs];
  return ms <= maxMs ? durationMs(ms) : null;
}

/** A duration as parseDuration reads it, or zero (`0`, `0s`, `0m`, `0h`, `0d`): a rotation's grace (`--grace`, the API's `grace`). */
export function parseDurationOrZero(text: string): DurationMs | null {
  return /^0[smhd]?$/.test(text.trim()) ? durationMs(0) : parseDuration(text);
}
