import type { Database } from '../../db/database.js';
import { UserInputError } from '../../errors.js';
import { runImport } from '../../import/run-import.js';
import type { Actor } from '../../shared/activity.js';
import type { Clock } from '../../shared/clock.js';
import { type EpochMillis, epochMillis } from '../../shared/time.js';
import { feedRecord, postRecord } from './content.js';
import { eventRecord } from './events.js';
import { groupRecord, memberRecord, profileRecord } from './people.js';
import { dayMs, type SeedCounts, type SeedOptions, SeedWorld } from './world.js';

export type SeedSize = 'small' | 'large';

/** small: a demo that loads in seconds; large: the community of the benchmarks (issue: performance). */
export const seedSizes: Readonly<Record<SeedSize, SeedCounts>> = {
  small: { profiles: 300, members: 300, groups: 6, feeds: 8, posts: 500, events: 200 },
  large: { profiles: 50_000, members: 50_000, groups: 40, feeds: 40, posts: 100_000, events: 100_000 },
};

/** The counts of a size with the command's overrides; members follow profiles. */
export function countsFor(size: SeedSize, overrides: { events?: number; posts?: number; profiles?: number }): SeedCounts {
  const counts = { ...seedSizes[size] };
  if (overrides.events !== undefined) counts.events = overrides.events;
  if (overrides.posts !== undefined) counts.posts = overrides.posts;
  if (overrides.profiles !== undefined) {
    counts.profiles = overrides.profiles;
    counts.members = overrides.profiles;
    counts.groups = Math.min(counts.groups, Math.max(1, Math.ceil(overrides.profiles / 50)));
  }
  if (counts.profiles === 0 && (counts.events > 0 || counts.posts > 0 || counts.groups > 0)) {
    throw new UserInputError('Events, posts and groups need profiles: use --profiles 1 or more.');
  }
  if (counts.feeds === 0 && counts.posts > 0) throw new UserInputError('Posts need feeds.');
  return counts;
}

/** The start of the current UTC day: dates spread around it, and stay the same all day. */
export const todayUtc = (now: EpochMillis): EpochMillis => epochMillis(Math.floor(now / dayMs) * dayMs);

/** Where progress goes (stderr in the CLI, so that --json stdout stays one document). */
export type ProgressSink = (line: string) => void;

export interface SeedRun extends SeedOptions {
  communityId: string;
  /** Records per import call (one transaction each): bounds memory and the length of a write lock. */
  chunkSize?: number;
  progress?: ProgressSink;
  /** Who the activity log names for each chunk's `import.completed` (the `seed` command: the CLI); absent: the server itself. */
  actor?: Actor;
}

export interface SeedResult {
  counts: Record<string, number>;
  /** Wall-clock milliseconds per section. */
  timings: Record<string, number>;
}

type Generator = (world: SeedWorld, index: number) => unknown;

/** The sections the seed writes, in import order (a section refers only to those before it). */
export const seedSections = ['profiles', 'members', 'groups', 'feeds', 'posts', 'calendar_events'] as const;
export type SeedSectionName = (typeof seedSections)[number];

const generators: Readonly<Record<SeedSectionName, Generator>> = {
  profiles: profileRecord,
  members: memberRecord,
  groups: groupRecord,
  feeds: feedRecord,
  posts: postRecord,
  calendar_events: eventRecord,
};

export const totalOf = (counts: SeedCounts, name: SeedSectionName): number => (name === 'calendar_events' ? counts.events : counts[name]);

/** Where a range of one section goes, and how it reports. */
export interface SeedTarget {
  database: Database;
  clock: Clock;
  world: SeedWorld;
  communityId: string;
  chunkSize: number;
  progress: ProgressSink;
  actor?: Actor;
}

/**
 * Writes records [from, to) of one section through the real import, one chunk (one `runImport`,
 * one transaction) at a time: the seeded data is exactly what an import of the same records
 * produces, and memory stays bounded by the chunk size whatever the counts.
 */
export async function seedRange(target: SeedTarget, name: SeedSectionName, from: number, to: number): Promise<number> {
  const started = performance.now();
  let done = 0;
  for (let at = from; at < to; at += target.chunkSize) {
    const end = Math.min(to, at + target.chunkSize);
    const records = Array.from({ length: end - at }, (_, k) => generators[name](target.world, at + k));
    const counts = await runImport(
      { database: target.database, clock: target.clock, communityId: target.communityId, actor: target.actor },
      { [name]: records },
    );
    done += counts[name] ?? 0;
    const seconds = (performance.now() - started) / 1000;
    const rate = seconds > 0 ? Math.round(done / seconds) : done;
    target.progress(`seed ${name}: ${from + done}/${totalOf(target.world.options.counts, name)} (${seconds.toFixed(1)} s, ${rate}/s)`);
  }
  return done;
}

/** Generates the whole community, section after section (see seedRange). */
export async function runSeed(database: Database, clock: Clock, run: SeedRun): Promise<SeedResult> {
  const target: SeedTarget = {
    database,
    clock,
    world: new SeedWorld(run),
    communityId: run.communityId,
    chunkSize: run.chunkSize ?? 5000,
    progress: run.progress ?? (() => {}),
    actor: run.actor,
  };
  const result: SeedResult = { counts: {}, timings: {} };
  for (const name of seedSections) {
    const started = performance.now();
    result.counts[name] = await seedRange(target, name, 0, totalOf(run.counts, name));
    result.timings[name] = Math.round(performance.now() - started);
  }
  return result;
}
