// Bench only (docs/performance.md, "Tail"): loaded into the server with `node --import`, it writes
// one JSON line a second to BENCH_LOOP_FILE: the event loop's delay (p50, p99, max, from
// perf_hooks.monitorEventLoopDelay at 1 ms resolution), the garbage collections of that second
// (count, total and longest pause, by kind), and the requests answered with the time each spent
// inside the server (from the request's headers parsed to its response's last byte handed to the
// kernel: p50, p99, max), so that a client's latency can be split into waiting to be read and being served.
import { appendFileSync, existsSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';

const file = process.env.BENCH_LOOP_FILE;
if (file) {
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  let gcs = [];
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) gcs.push({ kind: entry.detail?.kind ?? 0, ms: entry.duration });
  }).observe({ entryTypes: ['gc'] });
  let served = [];
  let waited = [];
  const cycles = [];
  const http = createRequire(import.meta.url)('node:http');
  const emit = http.Server.prototype.emit;
  http.Server.prototype.emit = function (event, ...rest) {
    const [request, response] = rest;
    if (event === 'request') {
      const started = performance.now();
      const socket = request.socket;
      // From the previous answer on this connection to this request: the client turns round at once
      // (wrk), so this is how long the request waited before the server read it.
      if (socket.lastFinished !== undefined) waited.push(started - socket.lastFinished);
      const previous = socket.lastFinished;
      response.once('finish', () => {
        socket.lastFinished = performance.now();
        // The whole cycle the client sees from its previous answer to this one, minus nothing: an upper
        // bound of this request's latency as the server caused it (it includes the client's turn-round).
        if (previous !== undefined) cycles.push(socket.lastFinished - previous);
        served.push(socket.lastFinished - started);
      });
    }
    return emit.call(this, event, ...rest);
  };
  const pct = (values, p) => {
    if (values.length === 0) return 0;
    const sorted = [...values].sort((a, b) => a - b);
    return Math.round(sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] * 10) / 10;
  };
  const kinds = { 1: 'scavenge', 2: 'minor-mc', 4: 'mark-compact', 8: 'incremental', 16: 'weak' };
  process.on('exit', () => {
    appendFileSync(
      file,
      `${JSON.stringify({ run: true, cycles: cycles.length, cycleP50: pct(cycles, 50), cycleP90: pct(cycles, 90), cycleP99: pct(cycles, 99), cycleMax: pct(cycles, 100) })}\n`,
    );
  });
  setInterval(() => {
    // The runner empties the file after its warm-up: the whole-run figures start again there.
    if (existsSync(file) && statSync(file).size === 0) cycles.length = 0;
    const byKind = {};
    for (const { kind, ms } of gcs) {
      const name = kinds[kind] ?? kind;
      if (!byKind[name]) byKind[name] = { count: 0, totalMs: 0, maxMs: 0 };
      const k = byKind[name];
      k.count++;
      k.totalMs = Math.round((k.totalMs + ms) * 10) / 10;
      k.maxMs = Math.max(k.maxMs, Math.round(ms * 10) / 10);
    }
    const line = {
      t: Date.now(),
      loopP50: Math.round(loop.percentile(50) / 1e4) / 100,
      loopP99: Math.round(loop.percentile(99) / 1e4) / 100,
      loopMax: Math.round(loop.max / 1e4) / 100,
      gc: byKind,
      requests: served.length,
      servedP50: pct(served, 50),
      servedP99: pct(served, 99),
      servedMax: pct(served, 100),
      waitedP50: pct(waited, 50),
      waitedP99: pct(waited, 99),
      waitedMax: pct(waited, 100),
    };
    appendFileSync(file, `${JSON.stringify(line)}\n`);
    loop.reset();
    gcs = [];
    served = [];
    waited = [];
  }, 1000).unref();
}
