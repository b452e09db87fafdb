import { hash, randomBytes } from 'node:crypto';
import { toIso } from '../../shared/clock.js';
import type { EpochMillis } from '../../shared/time.js';

/** Prefix that makes a leaked key recognisable by secret scanners. */
const keyPrefix = 'ca_';

/** SHA-256 of a key's secret: the only form in which keys are stored (one-shot `hash`: no Hash object per request). */
export const hashApiKey = (secret: string): string => hash('sha256', secret, 'hex');

/** A new key's secret: the prefix and 192 random bits. */
export const newSecret = (): string => keyPrefix + randomBytes(24).toString('base64url');

/** An instant (epoch ms) as the CLI and the API print it, null kept. */
export const isoOrNull = (ms: EpochMillis | null): string | null => (ms === null ? null : toIso(ms));
