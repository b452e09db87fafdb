// Bench only: an open-loop load generator (a fixed offered rate, as wrk2 does; wrk2 is not in Debian).
// A closed loop of 50 connections measures how long 50 requests queue behind each other; an open loop
// measures what a request meets at a rate the server can carry: requests are sent on a schedule
// (`rate` per second, evenly spaced) whether or not earlier ones were answered, each on an idle
// keep-alive connection (a new one when none is idle), and its latency is counted from the time it
// was due, not from when it left: a generator that falls behind its schedule counts its own delay
// too (no coordinated omission). Raw sockets and a minimal HTTP/1.1 reader keep the generator's own
// cost per request small; it runs in its own process, pinned to core 1 by the runner:
//   taskset -c 1 node --import tsx bench/open-loop.ts '<json OpenLoopRequest>'   (prints one JSON OpenLoopResult)
import { connect, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';

export interface OpenLoopRequest {
  url: string;
  path: string;
  headers: Record<string, string>;
  /** Requests per second, offered whatever the answers. */
  rate: number;
  /** A first period whose figures are dropped (connections, JIT). */
  warmupSeconds: number;
  durationSeconds: number;
  /** At most this many connections (requests due with every one busy wait for one: counted in their latency). */
  maxConnections?: number;
  /**
   * Instead of a rate: a closed loop of this many connections, each sending its next request as soon
   * as it has its answer (what wrk does), timed from send to last byte. A second opinion beside wrk's
   * figures: on a loaded machine wrk -t1 reported p99s of 3-4 s while this loop and the server's own
   * cycles saw at most 0.5-0.7 s (docs/performance.md, *Tail*).
   */
  closed?: number;
}

export interface OpenLoopResult {
  rate: number;
  sent: number;
  answered: number;
  /** Answers other than 2xx. */
  failed: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  /** Connections opened: how many requests were in flight at once, at most. */
  connections: number;
  /** Requests still unanswered at the end (a rate above the server's capacity). */
  unanswered: number;
}

interface Connection {
  socket: Socket;
  buffer: Buffer;
  /** The due time of the request in flight, or null when idle. */
  due: number | null;
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
}

/** Where a complete response ends in `buffer` (Content-Length framing: the server's answers carry it), or -1. */
function responseEnd(buffer: Buffer): { end: number; status: number } | null {
  const headEnd = buffer.indexOf('\r\n\r\n');
  if (headEnd < 0) return null;
  const head = buffer.toString('latin1', 0, headEnd);
  const status = Number(head.slice(9, 12));
  const length = /\r\ncontent-length: *(\d+)/i.exec(head)?.[1];
  if (length === undefined) throw new Error(`open loop: an answer without Content-Length (${head.split('\r\n')[0]})`);
  const end = headEnd + 4 + Number(length);
  return buffer.length >= end ? { end, status } : null;
}

function requestBytes(spec: OpenLoopRequest): Buffer {
  const target = new URL(spec.url);
  const headerLines = Object.entries(spec.headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return Buffer.from(`GET ${spec.path} HTTP/1.1\r\nhost: ${target.host}\r\n${headerLines}\r\n`, 'latin1');
}

function summary(spec: OpenLoopRequest, latencies: number[], sent: number, failed: number, connections: number, unanswered: number) {
  const sorted = latencies.sort((a, b) => a - b);
  const round = (n: number) => Math.round(n * 100) / 100;
  return {
    rate: spec.closed ? 0 : spec.rate,
    sent,
    answered: latencies.length,
    failed,
    p50: round(percentile(sorted, 50)),
    p90: round(percentile(sorted, 90)),
    p99: round(percentile(sorted, 99)),
    max: round(sorted.at(-1) ?? Number.NaN),
    connections,
    unanswered,
  };
}

/** The closed loop (spec.closed connections): requests timed from send, after the warm-up (first requests of each connection included there). */
async function runClosedLoop(spec: OpenLoopRequest, connections: number): Promise<OpenLoopResult> {
  const target = new URL(spec.url);
  const wire = requestBytes(spec);
  const latencies: number[] = [];
  let failed = 0;
  let sent = 0;
  const measureFrom = performance.now() + spec.warmupSeconds * 1000;
  const end = measureFrom + spec.durationSeconds * 1000;
  await Promise.all(
    Array.from(
      { length: connections },
      () =>
        new Promise<void>((resolve, reject) => {
          const socket = connect(Number(target.port), target.hostname);
          socket.setNoDelay(true);
          let buffer: Buffer = Buffer.alloc(0);
          let sentAt = 0;
          const send = () => {
            if (performance.now() >= end) {
              socket.destroy();
              resolve();
              return;
            }
            sentAt = performance.now();
            sent++;
            socket.write(wire);
          };
          socket.on('connect', send);
          socket.on('error', reject);
          socket.on('data', (chunk: Buffer) => {
            buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
            const done = responseEnd(buffer);
            if (!done) return;
            buffer = buffer.subarray(done.end);
            if (sentAt >= measureFrom) {
              latencies.push(performance.now() - sentAt);
              if (done.status < 200 || done.status >= 300) failed++;
            }
            send();
          });
        }),
    ),
  );
  return summary(spec, latencies, sent, failed, connections, 0);
}

export async function runOpenLoop(spec: OpenLoopRequest): Promise<OpenLoopResult> {
  if (spec.closed) return runClosedLoop(spec, spec.closed);
  const target = new URL(spec.url);
  const wire = requestBytes(spec);
  const maxConnections = spec.maxConnections ?? 512;
  const idle: Connection[] = [];
  const all: Connection[] = [];
  const backlog: number[] = [];
  const latencies: number[] = [];
  let failed = 0;
  let sent = 0;
  const start = performance.now() + 50;
  const measureFrom = start + spec.warmupSeconds * 1000;
  const end = measureFrom + spec.durationSeconds * 1000;
  const interval = 1000 / spec.rate;

  const send = (connection: Connection, due: number) => {
    connection.due = due;
    connection.socket.write(wire);
  };
  const open = (): Connection => {
    const connection: Connection = { socket: connect(Number(target.port), target.hostname), buffer: Buffer.alloc(0), due: null };
    connection.socket.setNoDelay(true);
    connection.socket.on('data', (chunk: Buffer) => {
      connection.buffer = connection.buffer.length === 0 ? chunk : Buffer.concat([connection.buffer, chunk]);
      const done = responseEnd(connection.buffer);
      if (!done || connection.due === null) return;
      connection.buffer = connection.buffer.subarray(done.end);
      const due = connection.due;
      connection.due = null;
      if (due >= measureFrom && due < end) {
        latencies.push(performance.now() - due);
        if (done.status < 200 || done.status >= 300) failed++;
      }
      const next = backlog.shift();
      if (next !== undefined) send(connection, next);
      else idle.push(connection);
    });
    connection.socket.on('error', (error) => {
      throw new Error(`open loop: connection failed: ${error.message}`);
    });
    all.push(connection);
    return connection;
  };

  await new Promise<void>((resolve) => {
    let index = 0;
    const tick = () => {
      const now = performance.now();
      // Every request due by now goes out (on an idle connection, a new one, or the backlog).
      while (index < Number.MAX_SAFE_INTEGER) {
        const due = start + index * interval;
        if (due > now || due >= end) break;
        index++;
        sent++;
        const connection = idle.pop() ?? (all.length < maxConnections ? open() : null);
        if (connection) send(connection, due);
        else backlog.push(due);
      }
      if (start + index * interval >= end) return resolve();
      setTimeout(tick, Math.max(0, start + index * interval - performance.now()));
    };
    tick();
  });
  // Answers to the last requests: up to two seconds more.
  const grace = performance.now() + 2000;
  while (performance.now() < grace && all.some((c) => c.due !== null && c.due < end)) await new Promise((r) => setTimeout(r, 10));
  const unanswered = all.filter((c) => c.due !== null).length + backlog.length;
  for (const connection of all) connection.socket.destroy();
  return summary(spec, latencies, sent, failed, all.length, unanswered);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await runOpenLoop(JSON.parse(process.argv[2] as string) as OpenLoopRequest);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
