import type { DatabaseTarget } from '../config.js';

/**
 * The node options the server wants for its database. On PostgreSQL, 32 MB semi-spaces for V8's
 * young generation: requests wait for the database with their rows and half-built records in
 * memory, and with node's default 16 MB that garbage outlives its first scavenges, is promoted and
 * collected at great cost (a third of an uncached page's CPU when measured; docs/performance.md).
 * Not 64 (what it was until 2026-11-28): each scavenge of 64 MB semi-spaces held the event loop up
 * to 31 ms, which put the p99 of pages and searches at 50 connections at 4.0-4.7x their p50; 32
 * keeps it at 3.1-3.5x for 1-5% more CPU a request (docs/performance.md, "Third look"). On SQLite a
 * request's garbage dies young, and the larger young generation would only cost memory (the peak
 * RSS target at 100k events), so SQLite runs with node's defaults. V8 takes the option only at
 * start, so the operator gives it to node (README, "Scaling out"); `serve` warns when it is missing.
 */
export function serverNodeOptions(target: DatabaseTarget): string[] {
  return target.engine === 'postgres' ? ['--max-semi-space-size=32'] : [];
}

/** The options of `wanted` this process was not started with (neither on node's command line nor in NODE_OPTIONS). */
export function missingNodeOptions(wanted: readonly string[]): string[] {
  const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  return wanted.filter((option) => !given.some((arg) => arg.split('=')[0] === option.split('=')[0]));
}
