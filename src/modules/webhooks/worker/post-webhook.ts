import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { type DurationMs, durationMs, type EpochMillis } from '../../../shared/time.js';
import type { AttemptResult } from '../queries/deliveries.js';
import { signatureHeader } from '../rules/signing.js';
import {
  parseWebhookUrl,
  type ResolvedTarget,
  type Resolver,
  resolveWebhookTarget,
  WebhookTargetRefused,
} from '../rules/target-address.js';

// The attempt's result is what the deliveries' statements store (./deliveries.queries.ts).
export type { AttemptResult };

// Kept-alive connections: a busy endpoint gets its deliveries over a few sockets, not one per request.
const agents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 8 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 8 }),
};

/** How much of a receiver's answer is read before the connection is given up. */
const maxResponseBytes = 64 * 1024;
/** How much of it is kept, to show (test sends). */
const keptResponseBytes = 1024;

/**
 * POSTs one delivery to the address that was checked (the `lookup` below answers it instead of a
 * second DNS query, so the name cannot be re-pointed in between). Redirects are not followed: a 3xx
 * is a failed attempt like any non-2xx.
 */
function postWebhook(target: ResolvedTarget, headers: Record<string, string>, body: string, timeoutMs: DurationMs): Promise<AttemptResult> {
  const { url, address, family } = target;
  const pinned: LookupFunction = (_hostname, options, callback) => {
    if (options.all) (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address, family }]);
    else callback(null, address, family);
  };
  const transport = url.protocol === 'https:' ? https : http;
  const started = performance.now();
  return new Promise((resolve) => {
    let settled = false;
    const kept: Buffer[] = [];
    let keptBytes = 0;
    const finish = (result: Pick<AttemptResult, 'status' | 'error'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      const body = Buffer.concat(kept).subarray(0, keptResponseBytes).toString('utf8');
      resolve({ ...result, durationMs: durationMs(Math.round(performance.now() - started)), body });
    };
    const request = transport.request(
      url,
      {
        method: 'POST',
        agent: agents[url.protocol as 'http:' | 'https:'],
        lookup: pinned,
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      },
      (response) => {
        let received = 0;
        response.on('data', (chunk: Buffer) => {
          if (keptBytes < keptResponseBytes) {
            kept.push(chunk);
            keptBytes += chunk.length;
          }
          received += chunk.length;
          if (received > maxResponseBytes) response.destroy();
        });
        response.on('close', () => finish({ status: response.statusCode ?? null, error: null }));
        response.on('error', () => finish({ status: response.statusCode ?? null, error: null }));
      },
    );
    const timer = setTimeout(() => {
      request.destroy();
      finish({ status: null, error: `no answer within ${timeoutMs} ms` });
    }, timeoutMs);
    request.on('error', (error) => finish({ status: null, error: error.message }));
    request.end(body);
  });
}

/** One message to send: where, under which secrets, with which id, sent at which instant (epoch ms). */
export interface SignedSend {
  url: string;
  secrets: readonly string[];
  webhookId: string;
  body: string;
  sentAt: EpochMillis;
}

/** What sending needs from the configuration. */
export interface SendRules {
  allowPrivate: boolean;
  timeoutMs: DurationMs;
  resolver?: Resolver;
}

/**
 * Checks the target again (the rules of docs/webhooks.md, "Where a webhook may go"), signs the body
 * for this instant and POSTs it: the one way a webhook leaves, for deliveries and test sends alike.
 * A refused target is an attempt that failed without a connection.
 */
export async function sendSignedWebhook(send: SignedSend, rules: SendRules): Promise<AttemptResult> {
  let target: ResolvedTarget;
  try {
    target = await resolveWebhookTarget(parseWebhookUrl(send.url, rules.allowPrivate), rules.allowPrivate, rules.resolver);
  } catch (error) {
    if (error instanceof WebhookTargetRefused)
      return { status: null, error: `target refused: ${error.reason}`, durationMs: durationMs(0), body: '' };
    throw error;
  }
  const timestamp = Math.floor(send.sentAt / 1000);
  const headers = {
    'content-type': 'application/json',
    'user-agent': 'community-admin-webhooks',
    'webhook-id': send.webhookId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signatureHeader(send.secrets, send.webhookId, timestamp, send.body),
  };
  return postWebhook(target, headers, send.body, rules.timeoutMs);
}
