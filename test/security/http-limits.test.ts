// Transport limits of a real server process over raw sockets: a slow (slowloris) client is cut
// within REQUEST_TIMEOUT_MS plus the check interval, oversized headers get a 431 and an oversized
// streamed body a 413 in the envelope, and the server keeps serving after each.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ensureBuilt, type ServerProcess, startServerProcess } from '../http/server-processes.js';

const requestTimeoutMs = 1000;

interface RawExchange {
  /** Everything the server sent before closing. */
  received: string;
  /** Milliseconds from connecting until the server closed the connection. */
  closedAfterMs: number;
}

/** Opens a raw connection, runs `feed` (which writes slowly or in bulk), and waits for the server to close it. */
function rawExchange(port: number, feed: (socket: Socket) => void, giveUpMs = 15_000): Promise<RawExchange> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(port, '127.0.0.1');
    let received = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server kept the connection open for ${giveUpMs} ms; received: ${received}`));
    }, giveUpMs);
    socket.on('data', (chunk) => {
      received += chunk.toString();
    });
    socket.on('error', () => {
      // A reset after the answer is fine: what matters is when the server let go.
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ received, closedAfterMs: Date.now() - started });
    });
    socket.on('connect', () => feed(socket));
  });
}

/** Writes `text` one byte every `intervalMs` until the socket closes. */
function dribble(socket: Socket, text: string, intervalMs: number): void {
  let at = 0;
  const timer = setInterval(() => {
    if (socket.destroyed || at >= text.length) {
      clearInterval(timer);
      return;
    }
    socket.write(text[at++] as string);
  }, intervalMs);
  socket.on('close', () => clearInterval(timer));
}

function envelopeOf(raw: string): { status: number; code: string } {
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1]);
  const body = raw.slice(raw.indexOf('\r\n\r\n') + 4);
  const parsed = JSON.parse(body.slice(body.indexOf('{'))) as { success: boolean; error: { code: string } };
  assert.equal(parsed.success, false);
  return { status, code: parsed.error.code };
}

describe('transport limits of a real server', () => {
  let server: ServerProcess;
  let port: number;
  let key: string;
  const dir = mkdtempSync(join(tmpdir(), 'community-admin-limits-'));

  before(async () => {
    ensureBuilt();
    server = await startServerProcess({ DATABASE_URL: `sqlite:${join(dir, 'limits.db')}`, REQUEST_TIMEOUT_MS: String(requestTimeoutMs) });
    port = Number(new URL(server.baseUrl).port);
    // The first start prints the default community's key once.
    key = /Bearer (ca_[A-Za-z0-9_-]+)/.exec(server.output())?.[1] ?? '';
    assert.ok(key, server.output());
  });
  after(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const assertStillServing = async () => assert.equal((await fetch(`${server.baseUrl}/healthz`)).status, 200);

  it('cuts a client that sends its headers one byte at a time (slowloris) within the request timeout', async () => {
    const exchange = await rawExchange(port, (socket) =>
      dribble(socket, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ${'a'.repeat(200)}\r\n\r\n`, 100),
    );
    // The timeout is checked periodically (at most every second, see transport-errors.ts).
    assert.ok(exchange.closedAfterMs < requestTimeoutMs + 1500, `closed after ${exchange.closedAfterMs} ms`);
    assert.ok(exchange.closedAfterMs >= requestTimeoutMs - 50, `closed too early: ${exchange.closedAfterMs} ms`);
    assert.deepEqual(envelopeOf(exchange.received), { status: 408, code: 'request_timeout_client' });
    await assertStillServing();
  });

  it('cuts a client that sends a body slower than the request timeout allows', async () => {
    const head = 'POST /admin/v0/members/check HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n';
    const exchange = await rawExchange(port, (socket) => {
      socket.write(head);
      dribble(socket, `{"email":"${'a'.repeat(480)}"}`, 100);
    });
    assert.ok(exchange.closedAfterMs < requestTimeoutMs + 1500, `closed after ${exchange.closedAfterMs} ms`);
    await assertStillServing();
  });

  it('answers headers over 16 KiB with a 431 in the envelope and keeps serving', async () => {
    const exchange = await rawExchange(port, (socket) =>
      socket.write(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(20 * 1024)}\r\n\r\n`),
    );
    assert.deepEqual(envelopeOf(exchange.received), { status: 431, code: 'headers_too_large' });
    assert.match(exchange.received, /X-Content-Type-Options: nosniff/i);
    await assertStillServing();
    // Just under the limit is served normally.
    const res = await fetch(`${server.baseUrl}/healthz`, { headers: { 'x-big': 'b'.repeat(12 * 1024) } });
    assert.equal(res.status, 200);
  });

  it('answers a chunked body over 1 MiB with a 413 in the envelope that a client still sending reads, and keeps serving', async () => {
    const exchange = await rawExchange(port, (socket) => {
      // The client reads only after it has sent everything, as a busy client does: a server that
      // closes while bytes are still coming makes the kernel reset the connection and drop the answer.
      socket.pause();
      setTimeout(() => socket.resume(), 300);
      socket.write(
        `POST /admin/v0/members/check HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
      );
      const chunk = 'x'.repeat(64 * 1024);
      for (let i = 0; i < 256 && !socket.destroyed; i++) socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
      if (!socket.destroyed) socket.write('0\r\n\r\n');
    });
    assert.deepEqual(envelopeOf(exchange.received), { status: 413, code: 'payload_too_large' });
    await assertStillServing();
  });

  it('answers bytes that are not HTTP with a 400 in the envelope and keeps serving', async () => {
    const exchange = await rawExchange(port, (socket) => socket.write('\u0016\u0003\u0001 definitely not http\r\n\r\n'));
    assert.deepEqual(envelopeOf(exchange.received), { status: 400, code: 'validation_failed' });
    await assertStillServing();
  });
});
