import type { BenchDataset, DatasetName } from './datasets.js';
import type { Variant } from './server.js';

/** What a scenario's requests need to know about the dataset. */
export interface ScenarioContext {
  dataset: BenchDataset;
  key: string;
  /** A published event of the target community (for event get). */
  eventId: string;
}

/** One request, as the load generator sends it (`{uuid}` replaced per request when `fresh`). */
export interface RequestSpec {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
  fresh?: boolean;
}

export interface Scenario {
  name: string;
  /** What it measures, for the report. */
  title: string;
  datasets: readonly DatasetName[];
  /** The status every answer must have. */
  status: number | readonly number[];
  request(context: ScenarioContext): RequestSpec;
  /** A server with a part switched off (bench/hooks): the baseline of another scenario. */
  variant?: Variant;
  /**
   * The scenario this one is compared with: both run in the same group, their runs alternating,
   * so that a change in the machine's background load hits both alike. A no-count variant also
   * answers that scenario's total (so both send the same bytes).
   */
  pairedWith?: string;
  /** Writes rows: runs after the read scenarios; its rows are removed afterwards. */
  mutates?: boolean;
  /** Server configuration of this scenario (documented settings only, e.g. the response cache off). */
  env?: Record<string, string>;
  /** Also measure the framework floor (a minimal Fastify app answering the same bytes, floor-server.ts). */
  floor?: boolean;
}

/** The operator's switch for cached answers: off, every request is a miss (what a first read costs). */
const cacheOff = { RESPONSE_CACHE_MB: '0' };

const list = ['10k', '100k', '1m'] as const;
const small = ['10k', '100k'] as const;
const eventsPage = '/admin/v0/calendar_events?page=3&per_page=20';
const homePage = '/admin/v0/feeds/home/posts?page=3&per_page=20';
const auth = (context: ScenarioContext) => ({ authorization: `Bearer ${context.key}` });
const json = { 'content-type': 'application/json' };
const newMember = JSON.stringify({ email: 'bench-{uuid}@bench.example.com', full_name: 'Bench Member' });
/** When the events that events.create makes start: no generated event does, so removeBenchWrites finds them. */
export const benchEventStart = '2099-01-01T10:00:00Z';
const newEvent = JSON.stringify({ title: 'Bench created {uuid}', start_date: benchEventStart });

/** Every scenario of the suite, in the order they run on a dataset (writers last). */
export const scenarios: readonly Scenario[] = [
  {
    name: 'events.list',
    floor: true,
    title: 'event list: defaults (time_filter all since issue 17, published), page 3 of 20, with totals',
    datasets: [...list, 'multi'],
    status: 200,
    request: (c) => ({ method: 'GET', path: eventsPage, headers: auth(c) }),
  },
  {
    // Issue 17: the default (all) must be at least as fast as upcoming; run alternating with it.
    name: 'events.list.upcoming',
    title: 'event list: time_filter=upcoming (the default before issue 17), page 3 of 20, with totals',
    datasets: [...list, 'multi'],
    status: 200,
    pairedWith: 'events.list',
    request: (c) => ({ method: 'GET', path: `${eventsPage}&time_filter=upcoming`, headers: auth(c) }),
  },
  {
    name: 'events.list.all.published',
    title: 'event list: time_filter=all&status=published spelled out (same answer and cache key as the default)',
    datasets: small,
    status: 200,
    pairedWith: 'events.list',
    request: (c) => ({ method: 'GET', path: `${eventsPage}&time_filter=all&status=published`, headers: auth(c) }),
  },
  {
    name: 'events.list.nocount',
    title: 'the same event list without SELECT COUNT(*) (bench variant)',
    datasets: [...list, 'multi'],
    status: 200,
    variant: 'no-count',
    pairedWith: 'events.list',
    request: (c) => ({ method: 'GET', path: eventsPage, headers: auth(c) }),
  },
  {
    name: 'events.list.uncached',
    title: 'the same event list with the response cache off (RESPONSE_CACHE_MB=0): the cost of a miss',
    datasets: [...list, 'multi'],
    status: 200,
    env: cacheOff,
    pairedWith: 'events.list',
    request: (c) => ({ method: 'GET', path: eventsPage, headers: auth(c) }),
  },
  {
    name: 'events.list.uncached.nocount',
    title: 'the same event list with the response cache off and without SELECT COUNT(*) (bench variant)',
    datasets: list,
    status: 200,
    env: cacheOff,
    variant: 'no-count',
    pairedWith: 'events.list',
    request: (c) => ({ method: 'GET', path: eventsPage, headers: auth(c) }),
  },
  {
    name: 'events.list.filtered',
    title: 'event list with tag_ids (2 tags) and feed_id, page 0 of 20',
    datasets: list,
    status: 200,
    request: (c) => ({
      method: 'GET',
      path: `/admin/v0/calendar_events?per_page=20&tag_ids=${c.dataset.target.tagIds.join(',')}&feed_id=${c.dataset.target.feedId}`,
      headers: auth(c),
    }),
  },
  {
    name: 'events.get',
    floor: true,
    title: 'event get',
    datasets: list,
    status: 200,
    request: (c) => ({ method: 'GET', path: `/admin/v0/calendar_events/${c.eventId}`, headers: auth(c) }),
  },
  {
    name: 'events.get.uncached',
    title: 'event get with the response cache off (RESPONSE_CACHE_MB=0)',
    datasets: small,
    status: 200,
    env: cacheOff,
    pairedWith: 'events.get',
    request: (c) => ({ method: 'GET', path: `/admin/v0/calendar_events/${c.eventId}`, headers: auth(c) }),
  },
  {
    name: 'events.get.noguards',
    title: 'event get without auth and rate limit (bench variant)',
    datasets: small,
    status: 200,
    variant: 'no-guards',
    pairedWith: 'events.get',
    request: (c) => ({ method: 'GET', path: `/admin/v0/calendar_events/${c.eventId}`, headers: {} }),
  },
  {
    name: 'posts.feed',
    title: 'post list of the busiest feed, newest, page 3 of 20',
    datasets: list,
    status: 200,
    request: (c) => ({ method: 'GET', path: `/admin/v0/feeds/${c.dataset.target.feedId}/posts?page=3&per_page=20`, headers: auth(c) }),
  },
  {
    name: 'posts.home.newest',
    title: 'post list of Home, newest, page 3 of 20',
    datasets: list,
    status: 200,
    request: (c) => ({ method: 'GET', path: homePage, headers: auth(c) }),
  },
  {
    name: 'posts.home.nocount',
    title: 'the same Home list without SELECT COUNT(*) (bench variant)',
    datasets: list,
    status: 200,
    variant: 'no-count',
    pairedWith: 'posts.home.newest',
    request: (c) => ({ method: 'GET', path: homePage, headers: auth(c) }),
  },
  {
    name: 'posts.home.uncached',
    title: 'the same Home list with the response cache off (RESPONSE_CACHE_MB=0)',
    datasets: list,
    status: 200,
    env: cacheOff,
    pairedWith: 'posts.home.newest',
    request: (c) => ({ method: 'GET', path: homePage, headers: auth(c) }),
  },
  {
    name: 'posts.home.uncached.nocount',
    title: 'the same Home list with the response cache off and without SELECT COUNT(*) (bench variant)',
    datasets: list,
    status: 200,
    env: cacheOff,
    variant: 'no-count',
    pairedWith: 'posts.home.newest',
    request: (c) => ({ method: 'GET', path: homePage, headers: auth(c) }),
  },
  {
    name: 'posts.home.activity',
    title: 'post list of Home, most-recent-activity, page 3 of 20',
    datasets: list,
    status: 200,
    request: (c) => ({ method: 'GET', path: `${homePage}&sort=most-recent-activity`, headers: auth(c) }),
  },
  {
    name: 'members.check',
    floor: true,
    title: 'membership check of an existing member',
    datasets: small,
    status: 200,
    request: (c) => ({
      method: 'POST',
      path: '/admin/v0/members/check',
      headers: { ...auth(c), ...json },
      body: JSON.stringify({ email: c.dataset.target.memberEmail }),
    }),
  },
  {
    name: 'members.check.noguards',
    title: 'membership check without auth and rate limit (bench variant)',
    datasets: small,
    status: 200,
    variant: 'no-guards',
    pairedWith: 'members.check',
    request: (c) => ({
      method: 'POST',
      path: '/admin/v0/members/check',
      headers: json,
      body: JSON.stringify({ email: c.dataset.target.memberEmail }),
    }),
  },
  {
    name: 'auth.401',
    title: 'the 401 path (no Authorization header)',
    datasets: small,
    status: 401,
    request: () => ({ method: 'GET', path: eventsPage, headers: {} }),
  },
  {
    name: 'feeds.list',
    title: 'feed list, page 0 of 20 (never cached)',
    datasets: list,
    status: 200,
    request: (c) => ({ method: 'GET', path: '/admin/v0/feeds?per_page=20', headers: auth(c) }),
  },
  {
    name: 'events.create',
    title: 'event create (title and start only) with an Idempotency-Key',
    datasets: list,
    status: 201,
    mutates: true,
    request: (c) => ({
      method: 'POST',
      path: '/admin/v0/calendar_events',
      headers: { ...auth(c), ...json, 'idempotency-key': '{uuid}' },
      body: newEvent,
      fresh: true,
    }),
  },
  {
    name: 'members.add',
    title: 'member add (new email) with an Idempotency-Key',
    datasets: list,
    status: 201,
    mutates: true,
    request: (c) => ({
      method: 'POST',
      path: '/admin/v0/members',
      headers: { ...auth(c), ...json, 'idempotency-key': '{uuid}' },
      body: newMember,
      fresh: true,
    }),
  },
  {
    name: 'members.add.nokey',
    title: 'member add (new email) without Idempotency-Key',
    datasets: small,
    status: 201,
    mutates: true,
    pairedWith: 'members.add',
    request: (c) => ({ method: 'POST', path: '/admin/v0/members', headers: { ...auth(c), ...json }, body: newMember, fresh: true }),
  },
  {
    name: 'members.add.noguards',
    title: 'member add without auth, rate limit and idempotency (bench variant)',
    datasets: small,
    status: 201,
    mutates: true,
    variant: 'no-guards',
    pairedWith: 'members.add',
    request: () => ({ method: 'POST', path: '/admin/v0/members', headers: json, body: newMember, fresh: true }),
  },
];

/** The scenarios asked for, plus those they are compared with (a variant needs its original). */
export function selectScenarios(names: readonly string[] | null): Scenario[] {
  if (!names) return [...scenarios];
  const wanted = new Set(names);
  for (const name of names) {
    const scenario = scenarios.find((s) => s.name === name);
    if (!scenario) throw new Error(`unknown scenario "${name}" (known: ${scenarios.map((s) => s.name).join(', ')})`);
    if (scenario.pairedWith) wanted.add(scenario.pairedWith);
  }
  return scenarios.filter((s) => wanted.has(s.name));
}

/** Scenarios grouped for measurement: each original first, then those paired with it. */
export function groupScenarios(selected: readonly Scenario[]): Scenario[][] {
  const primaries = selected.filter((s) => !s.pairedWith || !selected.some((p) => p.name === s.pairedWith));
  return primaries.map((primary) => [primary, ...selected.filter((s) => s.pairedWith === primary.name)]);
}
