import { createHmac, randomBytes } from 'node:crypto';
import type { EpochMillis } from '../../../shared/time.js';

/*
 * Standard Webhooks signatures (https://www.standardwebhooks.com): the secret is `whsec_` and the
 * base64 of the key bytes; a signature is `v1,` and the base64 HMAC-SHA256 of `id.timestamp.body`
 * under those bytes. Several signatures, space-separated, are sent during a rotation's grace.
 */

const secretPrefix = 'whsec_';

/** A new endpoint secret: 32 random bytes, the size the reference library generates. */
export const newWebhookSecret = (): string => `${secretPrefix}${randomBytes(32).toString('base64')}`;

function keyOf(secret: string): Buffer {
  return Buffer.from(secret.startsWith(secretPrefix) ? secret.slice(secretPrefix.length) : secret, 'base64');
}

/** The `v1,` signature of one message under one secret. */
export function signWebhook(secret: string, webhookId: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', keyOf(secret)).update(`${webhookId}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/** The `webhook-signature` header value: one signature per secret still valid. */
export function signatureHeader(secrets: readonly string[], webhookId: string, timestampSeconds: number, body: string): string {
  return secrets.map((secret) => signWebhook(secret, webhookId, timestampSeconds, body)).join(' ');
}

/** The secrets that sign a message sent at `at` (epoch ms): the endpoint's, and the replaced one during its grace. */
export function signingSecrets(
  endpoint: { secret: string; previous_secret: string | null; previous_secret_expires_at: EpochMillis | null },
  at: EpochMillis,
): string[] {
  const { secret, previous_secret: previous, previous_secret_expires_at: expires } = endpoint;
  return previous !== null && expires !== null && expires > at ? [secret, previous] : [secret];
}
