import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import type { Database } from '../../src/db/database.js';
import { createApiKey } from '../../src/modules/api-keys/api-keys.commands.js';
import { createCommunity } from '../../src/modules/communities/communities.commands.js';
import { systemClock } from '../../src/shared/clock.js';
import { testConfig } from '../support/harness.js';

/** The app listening on a real port of 127.0.0.1, on the real clock (rate-limit windows pass in real time). */
export interface ListeningApp {
  app: FastifyInstance;
  baseUrl: string;
}

/** Builds the app on the database with the environment and listens on a free port of 127.0.0.1. */
export async function listen(database: Database, env: Record<string, string> = {}): Promise<ListeningApp> {
  const app = await buildApp({ config: testConfig(env), database, clock: systemClock, logger: false });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  return { app, baseUrl: `http://127.0.0.1:${port}` };
}

/** A community of its own with an API key, so that each test counts only its own events. */
export async function newCommunity(database: Database): Promise<{ id: string; key: string }> {
  const community = await createCommunity(
    { database, clock: systemClock },
    { name: `Client ${randomUUID().slice(0, 8)}`, plan: 'enterprise' },
  );
  const key = await createApiKey({ database, clock: systemClock, communityId: community.id }, { label: 'client test' });
  return { id: community.id, key: key.key };
}

/** What the proxy does with one request. */
export type ProxyAction =
  | 'forward'
  /** Sends it on, then answers the client 503 instead of the server's answer (an answer lost on the way back). */
  | { forwardThenAnswer: number; retryAfter?: string }
  /** Answers without asking the server. */
  | { answer: number; retryAfter?: string }
  /** Closes the connection without an answer (a network failure). */
  | 'drop';

export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  /** The status the client got. */
  status?: number;
}

/**
 * An HTTP proxy on 127.0.0.1 in front of a real server that follows a script for the requests
 * matching it (then forwards), and records every request it saw.
 */
export class ScriptedProxy {
  readonly seen: SeenRequest[] = [];
  private script: { matches: (method: string, url: string) => boolean; actions: ProxyAction[] } | undefined;
  private server: Server | undefined;
  baseUrl = '';

  constructor(private readonly upstream: string) {}

  async start(): Promise<this> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const seen: SeenRequest = { method: request.method ?? 'GET', url: request.url ?? '/', headers: request.headers };
        this.seen.push(seen);
        this.handle(seen, Buffer.concat(chunks), response).catch((error: unknown) => {
          response.destroy(error instanceof Error ? error : new Error(String(error)));
        });
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.baseUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** The next requests matching `method` and a path starting with `pathPrefix` get these actions, in order. */
  plan(method: string, pathPrefix: string, ...actions: ProxyAction[]): void {
    this.script = { matches: (m, url) => m === method && url.startsWith(pathPrefix), actions };
    this.seen.length = 0;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  private nextAction(seen: SeenRequest): ProxyAction {
    if (!this.script?.matches(seen.method, seen.url)) return 'forward';
    return this.script.actions.shift() ?? 'forward';
  }

  private async handle(seen: SeenRequest, body: Buffer, response: ServerResponse): Promise<void> {
    const action = this.nextAction(seen);
    if (action === 'drop') {
      response.socket?.destroy();
      return;
    }
    if (typeof action === 'object' && 'answer' in action) return this.answer(seen, response, action.answer, action.retryAfter);
    const headers = new Headers();
    for (const [name, value] of Object.entries(seen.headers)) {
      if (value === undefined || ['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive'].includes(name)) continue;
      headers.set(name, Array.isArray(value) ? value.join(', ') : value);
    }
    const upstream = await fetch(this.upstream + seen.url, {
      method: seen.method,
      headers,
      body: body.length > 0 ? body : undefined,
    });
    const text = Buffer.from(await upstream.arrayBuffer());
    if (typeof action === 'object') return this.answer(seen, response, action.forwardThenAnswer, action.retryAfter);
    seen.status = upstream.status;
    const answerHeaders: Record<string, string> = {};
    upstream.headers.forEach((value, name) => {
      if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection', 'keep-alive'].includes(name))
        answerHeaders[name] = value;
    });
    response.writeHead(upstream.status, answerHeaders).end(text);
  }

  private answer(seen: SeenRequest, response: ServerResponse, status: number, retryAfter?: string): void {
    seen.status = status;
    const body = JSON.stringify({
      success: false,
      error: { code: 'proxy_says', message: `The proxy answered ${status}.`, hint: 'Retry.' },
    });
    response
      .writeHead(status, { 'content-type': 'application/json', ...(retryAfter === undefined ? {} : { 'retry-after': retryAfter }) })
      .end(body);
  }
}
