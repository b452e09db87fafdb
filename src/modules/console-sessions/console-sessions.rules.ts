import { hash, randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { publicBaseUrl } from '../../shared/public-base-url.js';
import { type DurationMs, durationMs } from '../../shared/time.js';

/** How long a console link works when `--expires` is not given. */
export const defaultLinkLifetime = '15m';
/** The longest a console link may work: it signs a browser in with every permission. */
const maxLinkLifetimeMs = durationMs(24 * 3_600_000);

const unitMs = { s: 1000, m: 60_000, h: 3_600_000 } as const;

/**
 * The lifetime of a console link from an operator's duration (`90s`, `15m`, `2h`: a positive whole
 * number and one of s, m, h), at most 24 hours; the problem in words otherwise.
 */
export function parseLinkLifetime(text: string): { ms: DurationMs } | { problem: string } {
  const match = /^([1-9]\d{0,5})([smh])$/.exec(text.trim());
  if (!match) return { problem: `must be a duration in seconds, minutes or hours such as 90s, 15m or 2h, not "${text}"` };
  const ms = Number(match[1]) * unitMs[match[2] as keyof typeof unitMs];
  if (ms > maxLinkLifetimeMs) return { problem: `must be at most 24h (a link signs a browser in with every permission), not "${text}"` };
  return { ms: durationMs(ms) };
}

/** A link's token: 256 random bits, URL-safe (it travels in the URL's fragment). */
export const newLinkToken = (): string => randomBytes(32).toString('base64url');

/** SHA-256 of a link's token: the only form in which it is stored, and looked up. */
export const hashLinkToken = (token: string): string => hash('sha256', token, 'hex');

/**
 * The console's sign-in URL: the token in the fragment, which a browser never sends to a server,
 * so it is in no access log and no Referer (docs/console.md).
 */
export const consoleLinkUrl = (base: string, token: string): string => `${base}/console/#token=${token}`;

/**
 * The base of console links: PUBLIC_BASE_URL when set, else the server's address (its real port
 * once listening). A wildcard HOST (0.0.0.0, ::) is not an address a browser can open: the link
 * names the loopback address instead, as the first-start banner does.
 */
export function consoleBaseUrl(
  configured: string | null,
  listening: { host: string; port: number },
  address?: AddressInfo | string | null,
): string {
  const host = listening.host === '0.0.0.0' || listening.host === '::' ? '127.0.0.1' : listening.host;
  return publicBaseUrl(configured, { host, port: listening.port }, address);
}
