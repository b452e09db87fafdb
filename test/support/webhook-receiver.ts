import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Webhook } from 'standardwebhooks';

/** One request the receiver got, with what the reference library made of its signature. */
export interface ReceivedWebhook {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  payload: { type: string; timestamp: string; data: Record<string, unknown> };
  /** The secrets (of those the receiver was given) whose signature the reference library verified. */
  verifiedWith: string[];
  path: string;
}

/** How the receiver answers the next request: a status, or no answer at all (held until released). */
export type Behaviour = number | 'hang';

/**
 * A real HTTP receiver on 127.0.0.1 that verifies every delivery with `standardwebhooks` (the
 * specification's reference library) and answers as the test tells it, 200 by default.
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  /** Answers of the next requests, in order; when empty, `fallback`. */
  readonly script: Behaviour[] = [];
  fallback: Behaviour = 200;
  /** The body of every answer. */
  answerBody = 'ok';
  secrets: string[] = [];
  private server: Server | null = null;
  private held: ServerResponse[] = [];
  private waiters: { count: number; resolve: () => void }[] = [];
  port = 0;

  get url(): string {
    return `http://127.0.0.1:${this.port}/hook`;
  }

  async start(): Promise<void> {
    this.server = createServer((request, response) => void this.handle(request, response));
    this.server.keepAliveTimeout = 1000;
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
  }

  async stop(): Promise<void> {
    for (const response of this.held) response.destroy();
    this.held = [];
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  /** Resolves once `count` requests in all have arrived. */
  waitFor(count: number, timeoutMs = 15_000): Promise<void> {
    if (this.received.length >= count) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`receiver got ${this.received.length} of ${count} requests`)), timeoutMs);
      this.waiters.push({
        count,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  }

  /** Drops held requests without answering (their senders see a reset or their own timeout). */
  releaseHeld(): void {
    for (const response of this.held) response.destroy();
    this.held = [];
  }

  reset(): void {
    this.releaseHeld();
    this.received.length = 0;
    this.script.length = 0;
    this.fallback = 200;
    this.answerBody = 'ok';
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    let body = '';
    request.setEncoding('utf8');
    for await (const chunk of request) body += chunk;
    const headers = {
      'webhook-id': String(request.headers['webhook-id'] ?? ''),
      'webhook-timestamp': String(request.headers['webhook-timestamp'] ?? ''),
      'webhook-signature': String(request.headers['webhook-signature'] ?? ''),
    };
    const verifiedWith = this.secrets.filter((secret) => {
      try {
        new Webhook(secret).verify(body, headers);
        return true;
      } catch {
        return false;
      }
    });
    this.received.push({
      id: headers['webhook-id'],
      timestamp: headers['webhook-timestamp'],
      signature: headers['webhook-signature'],
      body,
      payload: JSON.parse(body) as ReceivedWebhook['payload'],
      verifiedWith,
      path: request.url ?? '',
    });
    for (const waiter of [...this.waiters]) {
      if (this.received.length >= waiter.count) {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
    const behaviour = this.script.shift() ?? this.fallback;
    if (behaviour === 'hang') {
      this.held.push(response);
      return;
    }
    response.writeHead(behaviour, { 'content-type': 'text/plain' }).end(this.answerBody);
  }
}
