import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { ResolvedTarget } from './target-address.js';

/** What one attempt got: the receiver's status, or the reason there was none. */
export interface AttemptResult {
  status: number | null;
  error: string | null;
}

// Kept-alive connections: a busy endpoint gets its deliveries over a few sockets, not one per request.
const agents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 8 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 8 }),
};

/** How much of a receiver's answer is read before the connection is given up. */
const maxResponseBytes = 64 * 1024;

/**
 * POSTs one delivery to the address that was checked (the `lookup` below answers it instead of a
 * second DNS query, so the name cannot be re-pointed in between). Redirects are not followed: a 3xx
 * is a failed attempt like any non-2xx.
 */
export function postWebhook(
  target: ResolvedTarget,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
): Promise<AttemptResult> {
  const { url, address, family } = target;
  const pinned: LookupFunction = (_hostname, options, callback) => {
    if (options.all) (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address, family }]);
    else callback(null, address, family);
  };
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: AttemptResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
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
