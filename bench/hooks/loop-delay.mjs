// Bench only (docs/performance.md, "Tail"): loaded into the server with `node --import`, it writes
// one JSON line a second to BENCH_LOOP_FILE: the event loop's delay (p50, p99, max, from
// perf_hooks.monitorEventLoopDelay at 1 ms resolution), the garbage collections of that second
// (count, total and longest pause, by kind), and the requests answered with the time each spent
// inside the server (from the request's headers parsed to its response's last byte handed to the
// kernel: p50, p99, max), so that a client's latency can be split into waiting to be read and being served.
// At exit, and on SIGUSR2 (then starting again), a line `run: true` for the run: each request's cycle
// (its previous answer on the connection to its own), and for the slowest 1% and the median ones what
// the cycle was made of (waiting to be read, being served, GC pauses inside it, turns of the loop waited).
import { appendFileSync, existsSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';

const file = process.env.BENCH_LOOP_FILE;
if (file) {
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  let gcs = [];
  // Every pause of the run, for the breakdown at exit of what the slowest requests waited behind.
  const pauses = [];
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      gcs.push({ kind: entry.detail?.kind ?? 0, ms: entry.duration });
      pauses.push([entry.startTime, entry.startTime + entry.duration]);
    }
  }).observe({ entryTypes: ['gc'] });
  let served = [];
  let waited = [];
  const cycles = [];
  /** Per request of the run: [cycle start, read, finished (performance.now() ms), turns waited], for the exit breakdown. */
  const timeline = [];
  // Turns of the event loop that read requests: every request read in one poll phase gets the same
  // number, which an immediate (the check phase, right after) moves on. Idle, nothing is scheduled.
  let turn = 0;
  let turnPending = false;
  const nextTurn = () => {
    turn++;
    turnPending = false;
  };
  /** Requests answered per connection in the run: how evenly the server read its connections. */
  const perSocket = new Map();
  const http = createRequire(import.meta.url)('node:http');
  const emit = http.Server.prototype.emit;
  http.Server.prototype.emit = function (event, ...rest) {
    const [request, response] = rest;
    if (event === 'request') {
      const started = performance.now();
      if (!turnPending) {
        turnPending = true;
        setImmediate(nextTurn);
      }
      const readTurn = turn;
      const socket = request.socket;
      // From the previous answer on this connection to this request: the client turns round at once
      // (wrk), so this is how long the request waited before the server read it.
      if (socket.lastFinished !== undefined) waited.push(started - socket.lastFinished);
      const previous = socket.lastFinished;
      const previousTurn = socket.lastTurn;
      response.once('finish', () => {
        socket.lastFinished = performance.now();
        socket.lastTurn = turn;
        // The whole cycle the client sees from its previous answer to this one, minus nothing: an upper
        // bound of this request's latency as the server caused it (it includes the client's turn-round).
        if (previous !== undefined) {
          cycles.push(socket.lastFinished - previous);
          // Turns of the loop between its previous answer and its own read: 1 = read in the next turn.
          timeline.push([previous, started, socket.lastFinished, readTurn - previousTurn]);
        }
        perSocket.set(socket, (perSocket.get(socket) ?? 0) + 1);
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
  /** GC milliseconds inside [from, to). */
  const gcWithin = (from, to) => {
    let ms = 0;
    for (const [a, b] of pauses) if (b > from && a < to) ms += Math.min(b, to) - Math.max(a, from);
    return ms;
  };
  const summarise = () => {
    // The slowest 1% of cycles: how much of each was waiting to be read and how much being served,
    // and how much of it the garbage collector held the thread; against the same for the median cycle.
    const sorted = [...timeline].sort((x, y) => x[2] - x[0] - (y[2] - y[0]));
    const breakdown = (rows) => {
      const mean = (f) => (rows.length ? Math.round((rows.reduce((t, r) => t + f(r), 0) / rows.length) * 10) / 10 : 0);
      return {
        n: rows.length,
        cycle: mean((r) => r[2] - r[0]),
        waited: mean((r) => r[1] - r[0]),
        served: mean((r) => r[2] - r[1]),
        gcInCycle: mean((r) => gcWithin(r[0], r[2])),
        turnsWaited: mean((r) => r[3]),
      };
    };
    const p99From = Math.floor(sorted.length * 0.99);
    const middle = Math.floor(sorted.length * 0.5);
    const counts = [...perSocket.values()].sort((a, b) => a - b);
    appendFileSync(
      file,
      `${JSON.stringify({
        run: true,
        cycles: cycles.length,
        cycleP50: pct(cycles, 50),
        cycleP90: pct(cycles, 90),
        cycleP99: pct(cycles, 99),
        cycleMax: pct(cycles, 100),
        slowest1pct: breakdown(sorted.slice(p99From)),
        median1pct: breakdown(sorted.slice(Math.max(0, middle - Math.ceil(sorted.length / 200)), middle + Math.ceil(sorted.length / 200))),
        gc: {
          count: pauses.length,
          totalMs: Math.round(pauses.reduce((t, [a, b]) => t + b - a, 0)),
          maxMs: Math.round(Math.max(0, ...pauses.map(([a, b]) => b - a)) * 10) / 10,
        },
        turnsWaited: timeline.reduce((by, r) => {
          const k = r[3] >= 4 ? '4+' : String(r[3]);
          by[k] = (by[k] ?? 0) + 1;
          return by;
        }, {}),
        perConnection: { connections: counts.length, min: counts[0], p50: pct(counts, 50), max: counts.at(-1) },
      })}\n`,
    );
  };
  const reset = () => {
    cycles.length = 0;
    timeline.length = 0;
    pauses.length = 0;
    perSocket.clear();
  };
  process.on('exit', summarise);
  // A runner's mark between runs (bench/search.ts): the run so far summarised to the file, then forgotten.
  process.on('SIGUSR2', () => {
    summarise();
    reset();
  });
  setInterval(() => {
    // The runner empties the file after its warm-up: the whole-run figures start again there.
    if (existsSync(file) && statSync(file).size === 0) reset();
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
