import type { DatabaseTarget } from '../config.js';

/**
 * The node options the server wants for its database. On PostgreSQL, 64 MB semi-spaces for V8's
 * young generation: requests wait for the database with their rows and half-built records in
 * memory, and with node's default 16 MB that garbage outlives its first scavenges, is promoted and
 * collected at great cost (a third of an uncached page's CPU; docs/performance.md). On SQLite a
 * request's garbage dies young, and the larger young generation would only cost memory (the peak
 * RSS target at 100k events), so SQLite runs with node's defaults. V8 takes the option only at
 * start, so the operator gives it to node (README, "Scaling out"); `serve` warns when it is missing.
 */
export function serverNodeOptions(target: DatabaseTarget): string[] {
  return target.engine === 'postgres' ? ['--max-semi-space-size=64'] : [];
}

/** The options of `wanted` this process was not started with (neither on node's command line nor in NODE_OPTIONS). */
export function missingNodeOptions(wanted: readonly string[]): string[] {
  const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  return wanted.filter((option) => !given.some((arg) => arg.split('=')[0] === option.split('=')[0]));
}
