import { createHmac, timingSafeEqual } from 'node:crypto';
import type { EpochMillis } from '../../../shared/time.js';

/** Slack refuses requests older than five minutes; so do we (replays of a captured delivery). */
const maxSkewSeconds = 300;

export type SignatureCheck = 'ok' | 'missing' | 'stale' | 'mismatch';

/** `v0=` + hex HMAC-SHA256 of `v0:{timestamp}:{body}` with the signing secret (Slack's scheme). */
export function slackSignature(secret: string, timestamp: string, body: string): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
}

/** Checks X-Slack-Signature against the raw body, in constant time; the timestamp first. */
export function checkSlackSignature(
  secret: string,
  headers: { signature: string | undefined; timestamp: string | undefined },
  body: string,
  nowMs: EpochMillis,
): SignatureCheck {
  if (!headers.signature || !headers.timestamp || !/^\d{1,12}$/.test(headers.timestamp)) return 'missing';
  if (Math.abs(nowMs / 1000 - Number(headers.timestamp)) > maxSkewSeconds) return 'stale';
  const expected = Buffer.from(slackSignature(secret, headers.timestamp, body));
  const given = Buffer.from(headers.signature);
  return given.length === expected.length && timingSafeEqual(given, expected) ? 'ok' : 'mismatch';
}
