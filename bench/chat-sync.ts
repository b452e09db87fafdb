// `npm run bench:chat [-- --users 10000 --messages 100000 --seconds 10 --connections 50 --engine sqlite|postgres]`
// Two figures of the chat sync (docs/chat.md), against the local fake Slack of the tests:
//   1. backfill: `chat sync` (the built bin, its own process) of N users and M messages in 10 channels;
//      messages per second and the process's peak RSS (VmHWM). Targets: >= 2,000 msg/s on SQLite, < 300 MB.
//   2. events: signed deliveries POSTed to /chat/events of the built server at C connections (autocannon),
//      each a new message with its own event id; acks per second and the ack's p99 (target < 50 ms) while the
//      server's worker drains the queue, then the time the queue took to drain.
// PostgreSQL: BENCH_DATABASE_URL. Short run: --users 2000 --messages 20000 --seconds 3.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { type Database, ensurePostgresSchema, migrateToLatest, openDatabase } from '../src/db/database.js';
import { slackSignature } from '../src/modules/chat-sync/rules/signature.js';
import { createCommunity } from '../src/modules/communities/communities.commands.js';
import { systemClock } from '../src/shared/clock.js';
import { startFakeChatServer } from '../test/support/fake-chat-server.js';

const { values } = parseArgs({
  options: {
    users: { type: 'string', default: '10000' },
    messages: { type: 'string', default: '100000' },
    seconds: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    engine: { type: 'string', default: 'sqlite' },
  },
});
const users = Number(values.users);
const messages = Number(values.messages);
const root = join(import.meta.dirname, '..');
const bin = join(root, 'bin', 'community-admin.js');
const channels = 10;

/** A fresh database of the engine and the DATABASE_URL a child process reaches it with. */
async function database(): Promise<{ database: Database; url: string; drop: () => Promise<void> }> {
  if (values.engine === 'postgres') {
    const base = process.env.BENCH_DATABASE_URL;
    if (!base) throw new Error('--engine postgres needs BENCH_DATABASE_URL');
    const schema = `bench_chat_${randomBytes(4).toString('hex')}`;
    await ensurePostgresSchema(base, schema);
    const db = openDatabase({ engine: 'postgres', url: base }, { schema });
    await migrateToLatest(db);
    const url = `${base}${base.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
    return { database: db, url, drop: () => db.close() };
  }
  const dir = mkdtempSync(join(tmpdir(), 'bench-chat-'));
  const db = openDatabase({ engine: 'sqlite', path: join(dir, 'bench.db') });
  await migrateToLatest(db);
  return {
    database: db,
    url: `sqlite:${join(dir, 'bench.db')}`,
    drop: async () => {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Runs the bin to completion, sampling its peak resident set (VmHWM) from procfs. */
function run(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string; peakMb: number }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', ...env },
    });
    let stdout = '';
    let stderr = '';
    let peak = 0;
    const sample = setInterval(() => {
      try {
        const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
        if (match) peak = Math.max(peak, Number(match[1]) / 1024);
      } catch {
        // exited
      }
    }, 50);
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('close', (code) => {
      clearInterval(sample);
      resolve({ code, stdout, stderr, peakMb: Math.round(peak) });
    });
  });
}

const fake = await startFakeChatServer();
const target = await database();
const signingSecret = randomBytes(16).toString('hex');
const env = { DATABASE_URL: target.url, CHAT_API_URL: fake.url };
let server: ChildProcess | null = null;
try {
  for (let i = 0; i < users; i++)
    fake.addUser({ email: `u${i}@bench.example.com`, id: `U${String(i).padStart(8, '0')}`, real_name: `User ${i}` });
  for (let c = 0; c < channels; c++) fake.addChannel({ id: `C0BENCH${c}`, name: `bench-${c}`, num_members: users });
  for (let i = 0; i < messages; i++) {
    const ts = `${1_600_000_000 + i}.${String(i % 1_000_000).padStart(6, '0')}`;
    const text = `message ${i} of the bench`;
    fake.addMessage(`C0BENCH${i % channels}`, {
      ts,
      user: `U${String(i % users).padStart(8, '0')}`,
      text,
      blocks: [{ type: 'rich_text', block_id: 'b', elements: [{ type: 'rich_text_section', elements: [{ type: 'text', text }] }] }],
      ...(i % 7 === 0 ? { reactions: [{ name: 'tada', count: 2, users: [] }] } : {}),
    });
  }
  const community = await createCommunity({ database: target.database, clock: systemClock }, { name: 'Bench chat', plan: 'enterprise' });
  const connect = await run(
    ['chat', 'connect', '--community', community.id, '--bot-token', fake.botToken, '--signing-secret', signingSecret],
    env,
  );
  if (connect.code !== 0) throw new Error(connect.stderr);
  for (let c = 0; c < channels; c++) {
    const added = await run(['feed', 'add', '--community', community.id, '--channel', `C0BENCH${c}`, '--sync-all'], env);
    if (added.code !== 0) throw new Error(added.stderr);
  }

  const started = Date.now();
  const sync = await run(['chat', 'sync', '--community', community.id, '--json'], env);
  if (sync.code !== 0) throw new Error(sync.stderr);
  const seconds = (Date.now() - started) / 1000;
  const summary = JSON.parse(sync.stdout) as { messages: { read: number } };
  process.stdout.write(
    `backfill [${values.engine}]: ${users} users, ${summary.messages.read} messages in ${seconds.toFixed(1)} s = ${Math.round(summary.messages.read / seconds)} messages/s (whole run, users included); peak RSS ${sync.peakMb} MB\n`,
  );

  // Events: the built server, its worker draining while deliveries come in.
  const port = 20000 + Math.floor(Math.random() * 20000);
  server = spawn(process.execPath, [bin, 'serve'], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...env, PORT: String(port), CHAT_EVENTS_PER_SECOND: '1000000' },
    stdio: 'ignore',
  });
  for (let i = 0; i < 100; i++) {
    const up = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  let n = 0;
  const delivery = () => {
    n++;
    const body = JSON.stringify({
      token: 'x',
      team_id: fake.teamId,
      api_app_id: 'A0BENCH',
      type: 'event_callback',
      event_id: `EvBENCH${n}${randomBytes(3).toString('hex')}`,
      event_time: Math.floor(Date.now() / 1000),
      event: {
        type: 'message',
        channel: `C0BENCH${n % channels}`,
        user: `U${String(n % users).padStart(8, '0')}`,
        text: `live ${n}`,
        ts: `${1_700_000_000 + n}.000001`,
      },
    });
    const timestamp = String(Math.floor(Date.now() / 1000));
    return {
      body,
      headers: {
        'content-type': 'application/json',
        'x-slack-request-timestamp': timestamp,
        'x-slack-signature': slackSignature(signingSecret, timestamp, body),
      },
    };
  };
  const result = await autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: Number(values.connections),
    duration: Number(values.seconds),
    requests: [{ method: 'POST', path: '/chat/events', setupRequest: (request) => ({ ...request, ...delivery() }) }],
  });
  const drainStarted = Date.now();
  for (;;) {
    const row = await target.database.db
      .selectFrom('chat_event_queue')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('applied_at', 'is', null)
      .executeTakeFirstOrThrow();
    if (Number(row.n) === 0 || Date.now() - drainStarted > 300_000) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  process.stdout.write(
    `events [${values.engine}]: ${Math.round(result.requests.average)} acks/s at ${values.connections} connections, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, non-2xx ${result.non2xx}; queue drained ${((Date.now() - drainStarted) / 1000).toFixed(1)} s after the load\n`,
  );
} finally {
  server?.kill('SIGTERM');
  await fake.close();
  await target.drop();
}
