// Upload and download figures of files (docs/files.md), on a real server process:
//   1. the server's peak RSS (VmHWM of /proc/<pid>/status) before and after a 10 MB upload: the
//      first after the server started (nothing warmed: the parser, file-type and the statements load
//      on it) and the second; the rule, at most 15 MB more, holds for both (the exit code says whether);
//   2. the same for a 10 MB download: on the server that stored it, and the first request of a second
//      server process started afterwards (its caches empty);
//   3. upload and download throughput of 10 MB files, a few rounds.
// Usage: npm run bench:files [rounds, default 5]
// SQLite in a temp directory by default; BENCH_DATABASE_URL=postgres://... for PostgreSQL (own schema).
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serverNodeOptions } from '../src/cli/server-node-options.js';
import { parseDatabaseUrl } from '../src/config.js';
import { migrateToLatest } from '../src/db/database.js';
import { createApiKey } from '../src/modules/api-keys/api-keys.commands.js';
import { createCommunity } from '../src/modules/communities/communities.commands.js';
import { systemClock } from '../src/shared/clock.js';
import { openBenchDatabase } from './bench-database.js';

const rounds = Number(process.argv[2] ?? 5);
const fileBytes = 10 * 1024 * 1024;
const root = fileURLToPath(new URL('../', import.meta.url));
const bin = join(root, 'bin/community-admin.js');

/** VmHWM and VmRSS of a process, in MiB. */
function memoryOf(pid: number): { peak: number; rss: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
  return { peak: kib('VmHWM') / 1024, rss: kib('VmRSS') / 1024 };
}

async function startServer(databaseUrl: string, port: number): Promise<ChildProcess> {
  // BENCH_NODE_OPTIONS: extra node options for the server (e.g. --trace-gc), to study where memory goes.
  const extra = (process.env.BENCH_NODE_OPTIONS ?? '').split(/\s+/).filter(Boolean);
  const args = [...serverNodeOptions(parseDatabaseUrl(databaseUrl)), ...extra, bin, 'serve'];
  const child = spawn(process.execPath, args, {
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn', DATABASE_URL: databaseUrl },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  for (let i = 0; i < 200; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok) return child;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill('SIGKILL');
  throw new Error('the server did not start');
}

async function upload(base: string, key: string, bytes: Buffer, filename: string): Promise<string> {
  const form = new FormData();
  form.set('filename', filename);
  form.set('size', String(bytes.length));
  form.set('file', new Blob([bytes]), filename);
  const response = await fetch(`${base}/admin/v0/files`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
  if (response.status !== 201) throw new Error(`upload answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { data: { url: string } }).data.url;
}

async function download(url: string): Promise<number> {
  const response = await fetch(url);
  let bytes = 0;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.byteLength;
  return bytes;
}

const mb = (n: number) => n.toFixed(1);

async function main(): Promise<void> {
  const { database, url, cleanup } = await openBenchDatabase('files');
  await migrateToLatest(database);
  const community = await createCommunity({ database, clock: systemClock }, { name: 'Bench files', plan: 'free' });
  const { key } = await createApiKey({ database, clock: systemClock, communityId: community.id }, { label: 'bench' });
  const port = 20000 + Math.floor(Math.random() * 20000);
  const server = await startServer(url, port);
  const base = `http://127.0.0.1:${port}`;
  const pid = server.pid as number;
  try {
    const big = randomBytes(fileBytes);
    const settle = () => new Promise((resolve) => setTimeout(resolve, 500));
    /** Peak RSS that `step` adds to the process `pid`, in MiB. */
    const peakAdded = async (processId: number, step: () => Promise<unknown>) => {
      await settle();
      const start = memoryOf(processId).peak;
      await step();
      await settle();
      return { start, added: memoryOf(processId).peak - start };
    };
    let first = '';
    const firstUpload = await peakAdded(pid, async () => {
      first = await upload(base, key, big, 'first.bin');
    });
    const secondUpload = await peakAdded(pid, () => upload(base, key, big, 'second.bin'));
    const download1 = await peakAdded(pid, () => download(first));
    // A second instance: the file another process stored, downloaded first thing after its start.
    const otherPort = port + 1;
    const other = await startServer(url, otherPort);
    let coldDownload: { start: number; added: number };
    try {
      coldDownload = await peakAdded(other.pid as number, async () => {
        if ((await download(first.replace(base, `http://127.0.0.1:${otherPort}`))) !== fileBytes) throw new Error('short download');
      });
    } finally {
      other.kill('SIGTERM');
      await new Promise((resolve) => other.once('exit', resolve));
    }
    const before = memoryOf(pid);
    const uploadTimes: number[] = [];
    const downloadTimes: number[] = [];
    for (let i = 0; i < rounds; i++) {
      let start = performance.now();
      await upload(base, key, big, `round-${i}.bin`);
      uploadTimes.push(performance.now() - start);
      start = performance.now();
      if ((await download(first)) !== fileBytes) throw new Error('short download');
      downloadTimes.push(performance.now() - start);
    }
    const afterAll = memoryOf(pid);
    const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)] as number;
    const engine = parseDatabaseUrl(url).engine;
    const rate = (ms: number) => mb(fileBytes / (1024 * 1024) / (ms / 1000));
    process.stdout.write(
      [
        `engine: ${engine}; node ${process.version}; server options: ${serverNodeOptions(parseDatabaseUrl(url)).join(' ') || '(none)'}`,
        `first 10 MB upload after start: peak RSS ${mb(firstUpload.start)} MiB: +${mb(firstUpload.added)} MiB (rule: at most +15)`,
        `second 10 MB upload: peak RSS ${mb(secondUpload.start)} MiB: +${mb(secondUpload.added)} MiB (rule: at most +15)`,
        `10 MB download, same server: peak RSS ${mb(download1.start)} MiB: +${mb(download1.added)} MiB`,
        `10 MB download, first request of a second server: peak RSS ${mb(coldDownload.start)} MiB: +${mb(coldDownload.added)} MiB`,
        `after ${rounds} more uploads and ${rounds} downloads: peak RSS ${mb(afterAll.peak)} MiB: +${mb(afterAll.peak - before.peak)} MiB`,
        `upload 10 MB: median ${median(uploadTimes).toFixed(0)} ms (${rate(median(uploadTimes))} MiB/s)`,
        `download 10 MB: median ${median(downloadTimes).toFixed(0)} ms (${rate(median(downloadTimes))} MiB/s)`,
        '',
      ].join('\n'),
    );
    if (firstUpload.added > 15 || secondUpload.added > 15) process.exitCode = 1;
  } finally {
    server.kill('SIGTERM');
    await new Promise((resolve) => server.once('exit', resolve));
    await cleanup();
  }
}

await main();
