import { spawn } from 'node:child_process';
import type { DatabaseTarget } from '../config.js';

/** Set in the relaunched server, so that it never relaunches itself again. */
const relaunchedMark = 'COMMUNITY_ADMIN_RELAUNCHED';

/**
 * The node options the server needs for its database. On PostgreSQL, 64 MB semi-spaces for V8's
 * young generation: requests wait for the database with their rows and half-built records in
 * memory, and with node's default 16 MB that garbage outlives its first scavenges, is promoted and
 * collected at great cost (a third of an uncached page's CPU; docs/performance.md). On SQLite a
 * request's garbage dies young, and the larger young generation would only cost memory (the peak
 * RSS target at 100k events), so SQLite runs with node's defaults.
 */
export function serverNodeOptions(target: DatabaseTarget): string[] {
  return target.engine === 'postgres' ? ['--max-semi-space-size=64'] : [];
}

/** The options of `wanted` this process was not started with (neither on node's command line nor in NODE_OPTIONS). */
export function missingNodeOptions(wanted: readonly string[]): string[] {
  if (process.env[relaunchedMark]) return [];
  const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  return wanted.filter((option) => !given.some((arg) => arg.split('=')[0] === option.split('=')[0]));
}

/**
 * Runs this same command again in a node started with `options` (they can only be given at start:
 * V8 sizes its heap once), with the same standard streams, and ends as it ends. Signals are passed
 * on, so a service manager's SIGTERM stops the server gracefully.
 */
export function relaunchWith(options: readonly string[]): Promise<never> {
  const child = spawn(process.execPath, [...options, ...process.execArgv, ...process.argv.slice(1)], {
    stdio: 'inherit',
    env: { ...process.env, [relaunchedMark]: '1' },
  });
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, () => child.kill(signal));
  return new Promise<never>(() => {
    child.once('exit', (code, signal) => {
      if (signal) {
        process.removeAllListeners(signal);
        process.kill(process.pid, signal);
      }
      process.exit(code ?? 1);
    });
  });
}
