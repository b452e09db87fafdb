/** What the tests of GET /metrics share: reading samples of the text format, promtool, a second SQLite writer. */
import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { sqliteDriverName } from '../../src/db/sqlite-driver.js';

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Every sample line of a Prometheus text exposition. */
export function samples(text: string): Sample[] {
  const found: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
      labels[pair[1] as string] = pair[2] as string;
    found.push({ name: match[1] as string, labels, value: Number(match[3]) });
  }
  return found;
}

/** The value of the one sample of `name` whose labels include `labels`, or undefined. */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const matching = samples(text).filter((s) => s.name === name && Object.entries(labels).every(([key, value]) => s.labels[key] === value));
  if (matching.length > 1) throw new Error(`${matching.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return matching[0]?.value;
}

/** Whether a Debian package's program is on this machine. */
export const installed = (program: string): boolean => spawnSync('sh', ['-c', `command -v ${program}`]).status === 0;

/** promtool's complaints about the exposition ('' when it accepts it), or null when promtool is not installed. */
export function promtoolCheck(text: string): string | null {
  if (!installed('promtool')) return null;
  const run = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
  return run.status === 0 ? '' : `promtool exit ${run.status}: ${run.stdout}${run.stderr}`;
}

/** The driver the server loads on this Node.js line (src/db/sqlite-driver.ts). */
const betterSqlite = createRequire(import.meta.url).resolve(sqliteDriverName());

/**
 * Holds the write lock of the SQLite file from another process for `ms` (as the CLI writing would);
 * resolves once the lock is held, with a promise of that process's end (a promise cannot resolve to a promise).
 */
export async function holdSqliteWriteLock(path: string, ms: number): Promise<{ ended: Promise<void> }> {
  const script = `
    const Database = require(${JSON.stringify(betterSqlite)});
    const db = new Database(${JSON.stringify(path)});
    db.exec('begin immediate');
    process.stdout.write('locked\\n');
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ${ms});
    db.exec('commit');
    db.close();`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const ended = new Promise<void>((resolve, reject) =>
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`the lock holder exited ${code}`)))),
  );
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('locked')) resolve();
    });
    child.once('exit', () => reject(new Error('the lock holder ended before locking')));
  });
  return { ended };
}
