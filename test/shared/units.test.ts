// Units and closed lists in the types (issue 29). `npm run typecheck` compiles this file (tsconfig.json
// includes test/): every line under a `@ts-expect-error` must fail to compile, or the typecheck fails
// ("unused directive"). So each such line is a mix of units, or a typo in a closed list, that the
// compiler is shown to refuse; the lines without one show the right spelling compiles. The file also
// runs as a test, for the run-time arithmetic of the constructors.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CachedReadSpec } from '../../src/caching/cached-read.js';
import type { Config } from '../../src/config.js';
import type { ApiKeysTable, CalendarEventsTable, WebhookDeliveriesTable } from '../../src/db/schema.js';
import type { createApiKey } from '../../src/modules/api-keys/api-keys.commands.js';
import { type ChatEventOutcome, describeChatEventOutcome } from '../../src/modules/chat-sync/rules/event-outcome.js';
import type { upsertProfiles } from '../../src/modules/profiles/profiles.commands.js';
import type { sampleEventData } from '../../src/modules/webhooks/records/sample-events.js';
import { type Clock, storedNow, toIso } from '../../src/shared/clock.js';
import { parseDuration } from '../../src/shared/duration.js';
import { holds, type KeyPermissions, type Permission } from '../../src/shared/permissions.js';
import { type Plan, planAtLeast } from '../../src/shared/plans.js';
import type { RouteRule } from '../../src/shared/route-rules.js';
import {
  addMillis,
  type DurationMs,
  type DurationSeconds,
  durationMs,
  durationSeconds,
  type EpochMicros,
  type EpochMillis,
  epochMicros,
  epochMillis,
  microsFromMillis,
  millisFromMicros,
  millisOfSeconds,
  subtractMillis,
} from '../../src/shared/time.js';
import { formatJsonTimestamp, parseTimestamp } from '../../src/shared/timestamps.js';
import type { CommunityWrite } from '../../src/write-path/write-community-data.js';

const ms = epochMillis(Date.UTC(2026, 10, 21, 12));
const us = microsFromMillis(ms);
const minute = durationMs(60_000);
const plain = 1_795_000_000_000;

describe('units: the compiler tells milliseconds, microseconds and durations apart', () => {
  it('refuses an instant of one unit where the other is expected', () => {
    // @ts-expect-error epoch µs are not the clock's epoch ms
    microsFromMillis(us);
    // @ts-expect-error epoch ms are not stored µs
    millisFromMicros(ms);
    // @ts-expect-error the JSON spelling is of a stored instant (µs), not of the clock's ms
    formatJsonTimestamp(ms);
    // @ts-expect-error toIso spells the clock's ms (api keys, webhooks), not a stored µs instant
    toIso(us);
    // @ts-expect-error the write path's instant is µs: helpers that store it refuse ms
    const stored: CommunityWrite['now'] = ms;
    // @ts-expect-error upsertProfiles stores µs
    const profilesAt: Parameters<typeof upsertProfiles>[3] = ms;
    // @ts-expect-error a calendar event's start is stored in µs
    const startAt: CalendarEventsTable['start_at'] = ms;
    // @ts-expect-error api_keys count the clock's ms
    const keyExpiry: ApiKeysTable['expires_at'] = us;
    // @ts-expect-error webhook deliveries are scheduled against the clock (ms)
    const nextAttempt: WebhookDeliveriesTable['next_attempt_at'] = us;
    // @ts-expect-error a cached read's validity is in the unit of stored instants (µs)
    const validUntil: Awaited<ReturnType<CachedReadSpec<[]>['render']>>['validUntil'] = ms;
    assert.equal(formatJsonTimestamp(us), '2026-11-21T12:00:00+00:00');
    assert.equal(toIso(ms), '2026-11-21T12:00:00.000Z');
    assert.deepEqual([stored, profilesAt, startAt, keyExpiry, nextAttempt, validUntil].length, 6);
  });

  it('refuses a plain number, or a duration, where an instant is expected', () => {
    // @ts-expect-error a plain number has no unit: say where it comes from (epochMillis, epochMicros, ...)
    formatJsonTimestamp(plain);
    // @ts-expect-error a clock must answer epoch ms, not any number
    const clock: Clock = { now: () => Date.now() };
    // @ts-expect-error a duration is not an instant
    addMillis(minute, minute);
    // @ts-expect-error adding two instants means nothing
    addMillis(ms, ms);
    // @ts-expect-error a µs instant is not moved by addMillis
    addMillis(us, minute);
    assert.equal(typeof clock.now(), 'number');
  });

  it('refuses a plain number, or an instant, where a duration is expected', () => {
    // @ts-expect-error a setting's duration says its unit
    const timeout: Config['chatTimeoutMs'] = 5000;
    // @ts-expect-error an instant is not a duration
    const deadline: Config['requestDeadlineMs'] = ms;
    // @ts-expect-error createApiKey's lifetime is a duration
    const options: Parameters<typeof createApiKey>[1] = { expiresInMs: 3_600_000 };
    const parsed: DurationMs | null = parseDuration('15m');
    assert.equal(parsed, 900_000);
    assert.deepEqual([timeout, deadline, options?.expiresInMs], [5000, ms, 3_600_000]);
  });

  it('tells seconds from milliseconds (rate-limit windows, Retry-After, Slack waits)', () => {
    const window: DurationSeconds = durationSeconds(10);
    // @ts-expect-error a window counted in seconds is not milliseconds
    const asMs: DurationMs = window;
    // @ts-expect-error milliseconds are not seconds
    const asSeconds: Config['rateLimit']['windowSeconds'] = minute;
    // @ts-expect-error a plain number has no unit
    const plainWindow: Config['rateLimit']['windowSeconds'] = 10;
    // @ts-expect-error a webhook delivery's type is of the closed list
    const deliveryType: WebhookDeliveriesTable['type'] = 'member.create';
    assert.equal(millisOfSeconds(window), 10_000);
    assert.deepEqual([asMs, asSeconds, plainWindow, deliveryType].length, 4);
  });

  it('converts only through constructors that say how, and keeps the numbers as they were', () => {
    const clock: Clock = { now: () => ms };
    const now: EpochMicros = storedNow(clock);
    assert.equal(now, Date.UTC(2026, 10, 21, 12) * 1000);
    const back: EpochMillis = millisFromMicros(epochMicros(now + 999));
    assert.equal(back, ms, 'rounds down to the millisecond');
    assert.equal(addMillis(ms, minute), ms + 60_000);
    assert.equal(subtractMillis(ms, minute), ms - 60_000);
    assert.equal(parseTimestamp('2026-11-21T12:00:00Z'), us);
  });
});

describe('closed lists: a typo does not compile', () => {
  it('webhook event types (emit, wanted, samples)', () => {
    type Emitted = Parameters<CommunityWrite['emit']>[0];
    const good: Emitted = 'award.assigned';
    // @ts-expect-error no such webhook event type
    const typo: Emitted = 'member.create';
    // @ts-expect-error wanted takes the same closed list
    const asked: Parameters<CommunityWrite['wanted']>[0] = 'calendar_event.delete';
    // @ts-expect-error every sample is of a known type
    const sample: Parameters<typeof sampleEventData>[0] = 'post.edited';
    assert.deepEqual([good, typo, asked, sample].length, 4);
  });

  it('chat event outcomes (applyEvent)', () => {
    const good: ChatEventOutcome = { kind: 'ignored', reason: 'unbound_channel' };
    // @ts-expect-error no such outcome kind
    const kind: ChatEventOutcome = { kind: 'post_written', created: 1, updated: 0 };
    // @ts-expect-error no such reason to ignore an event
    const reason: ChatEventOutcome = { kind: 'ignored', reason: 'unbound_chanel' };
    // @ts-expect-error an outcome carries the data of its kind (posts_deleted counts posts)
    const fields: ChatEventOutcome = { kind: 'posts_deleted', threads: 1 };
    // @ts-expect-error an event type ignored says which type
    const untyped: ChatEventOutcome = { kind: 'ignored', reason: 'event_type' };
    assert.equal(describeChatEventOutcome(good), 'no feed bound to the channel');
    assert.deepEqual([kind, reason, fields, untyped].length, 4);
  });

  it('permissions and plans', () => {
    const held: KeyPermissions = new Set<Permission>(['members:read']);
    assert.equal(holds(held, 'members:read'), true);
    // @ts-expect-error no such permission
    holds(held, 'members:reed');
    // @ts-expect-error no such plan
    planAtLeast('free', 'grwth');
    const plan: Plan = 'momentum';
    // @ts-expect-error a route rule names a plan and a permission of the lists
    const rule: RouteRule = { plan: 'premium', permission: 'feeds:write' };
    assert.equal(planAtLeast(plan, 'growth'), true);
    assert.equal(rule.plan, 'premium');
  });
});
