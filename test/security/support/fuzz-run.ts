// The schema-driven fuzz suite, shared by the CI run (fuzz.test.ts) and the long run (fuzz.long.ts).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, it } from 'node:test';
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { createApiKey } from '../../../src/modules/api-keys/api-keys.commands.js';
import { createAward } from '../../../src/modules/awards/awards.commands.js';
import { createCalendarFeed } from '../../../src/modules/calendar-feeds/calendar-feeds.commands.js';
import { createConsoleLink } from '../../../src/modules/console-sessions/console-sessions.commands.js';
import { drainWebhookOutbox } from '../../../src/modules/webhooks/commands/fan-out.js';
import type { Resolver } from '../../../src/modules/webhooks/rules/target-address.js';
import { everyPermission } from '../../../src/shared/permissions.js';
import { durationMs } from '../../../src/shared/time.js';
import { describeEachEngine, type HarnessOptions, startTestApp, type TestApp } from '../../support/harness.js';
import { type FuzzContext, fileLengthMarker, requestArb, summarise } from './fuzz-requests.js';
import { fetchDocument, type Operation, operationsOf, ResponseValidator } from './openapi.js';
import { seedWorld } from './world.js';

export interface FuzzSuiteOptions {
  /** Generated requests per operation. */
  runs: number;
  seed: number;
  /** Longest time one operation's property may run (node:test timeout, ms). */
  timeoutMs: number;
}

/** FUZZ_RUNS and FUZZ_SEED from the environment, with the defaults of the calling file. */
export function fuzzOptionsFromEnv(defaultRuns: number, timeoutMs: number): FuzzSuiteOptions {
  const runs = Number.parseInt(process.env.FUZZ_RUNS ?? '', 10);
  const seed = Number.parseInt(process.env.FUZZ_SEED ?? '', 10);
  return { runs: Number.isFinite(runs) && runs > 0 ? runs : defaultRuns, seed: Number.isFinite(seed) ? seed : 20261122, timeoutMs };
}

/** Reads before writes, deletions last: earlier properties still find the seeded records. */
const methodOrder: Record<string, number> = { GET: 0, PATCH: 1, POST: 2, DELETE: 3 };
const byWriteImpact = (a: Operation, b: Operation) =>
  (methodOrder[a.method] ?? 9) - (methodOrder[b.method] ?? 9) ||
  Number(a.path.includes('deactivate')) - Number(b.path.includes('deactivate'));

/** What is wrong with a response to a fuzzed request, or null when it keeps every promise. */
export function responseProblem(operation: Operation, response: LightMyRequestResponse, validator: ResponseValidator): string | null {
  const status = response.statusCode;
  if (status >= 500) return `status ${status}: ${response.body.slice(0, 500)}`;
  const fileTypes = operation.fileTypes.get(status);
  if (fileTypes) {
    const type = String(response.headers['content-type']);
    if (!fileTypes.some((documented) => type.startsWith(documented))) return `content-type ${type} (documented: ${fileTypes.join(', ')})`;
    if (response.headers['x-content-type-options'] !== 'nosniff') return 'no X-Content-Type-Options: nosniff';
    return response.headers['x-request-id'] ? null : 'no X-Request-Id';
  }
  if (!/^application\/json/.test(String(response.headers['content-type']))) return `content-type ${response.headers['content-type']}`;
  if (response.headers['x-content-type-options'] !== 'nosniff') return 'no X-Content-Type-Options: nosniff';
  if (!response.headers['x-request-id']) return 'no X-Request-Id';
  let body: { success?: unknown; error?: { code?: unknown } };
  try {
    body = JSON.parse(response.body) as typeof body;
  } catch {
    return `body is not JSON: ${response.body.slice(0, 200)}`;
  }
  if (typeof body.success !== 'boolean') return 'body has no boolean success';
  const unknownRoute =
    (status === 404 && body.error?.code === 'route_not_found') || (status === 405 && body.error?.code === 'method_not_allowed');
  if (!operation.statuses.has(status) && !unknownRoute) return `undocumented status ${status}: ${response.body.slice(0, 300)}`;
  if (body.success !== status < 400) return `success=${String(body.success)} with status ${status}`;
  if (unknownRoute && !operation.statuses.has(status)) return null;
  const invalid = validator.validate(operation, status, body);
  return invalid ? `status ${status} body does not match the document: ${invalid}: ${response.body.slice(0, 300)}` : null;
}

function assertNoPollution(): void {
  const probe: Record<string, unknown> = {};
  assert.equal(probe.polluted, undefined, 'Object.prototype was polluted');
  assert.deepEqual(Object.keys(Object.prototype), [], 'Object.prototype gained keys');
}

/*
 * The fuzz app accepts loopback webhook targets, so that POST /webhook_endpoints can succeed. Nothing
 * is sent there: buildApp starts no delivery worker (main.ts does), and the port (discard, 9) is
 * loopback in any case. Fuzzed URLs name arbitrary hosts: its resolver answers `localhost` and
 * refuses every other name without asking a DNS server, so no fuzzed name leaves the machine.
 */
const webhookTarget = 'http://127.0.0.1:9/hook';
const resolveLocalhostOnly: Resolver = async (hostname) => {
  if (hostname === 'localhost') return [{ address: '127.0.0.1', family: 4 }];
  throw new Error(`${hostname} is not resolved in the fuzz run`);
};
const fuzzAppOptions: HarnessOptions = { env: { WEBHOOK_ALLOW_PRIVATE: 'true' }, services: { webhookResolver: resolveLocalhostOnly } };

/** Registers `count` webhook endpoints through the API: the ids DELETE /webhook_endpoints/{id} finds. */
async function createWebhookEndpoints(t: TestApp, auth: { authorization: string }, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const response = await t.request({
      method: 'POST',
      url: '/admin/v0/webhook_endpoints',
      headers: auth,
      payload: { url: webhookTarget },
    });
    assert.equal(response.statusCode, 201, response.body);
    ids.push(response.json<{ data: { id: string } }>().data.id);
  }
  return ids;
}

/** The operations of the document the app serves, in the order the suite fuzzes them. */
async function servedOperations(): Promise<Operation[]> {
  const t = await startTestApp('sqlite');
  try {
    return operationsOf(await fetchDocument(t)).sort(byWriteImpact);
  } finally {
    await t.app.close();
    await t.testDb.drop();
  }
}

/**
 * Operations whose success needs what the fuzz app has not: a Slack workspace (their refusals are
 * still fuzzed; their successes are tested in test/modules/chat-sync/sync-jobs-api.test.ts).
 */
const cannotSucceedHere = new Map([
  ['POST /admin/v0/chat/sync_jobs', 'a backfill starts only for a community whose Slack bot is connected'],
  ['GET /admin/v0/chat/sync_jobs/{id}', 'a sync job exists only once a backfill started, which needs a connected Slack bot'],
]);

/** Defines the fuzz suite on every engine: one test per operation of the served OpenAPI document. */
export async function defineFuzzSuite(title: string, options: FuzzSuiteOptions): Promise<void> {
  const names = (await servedOperations()).map((operation) => operation.name);
  describeEachEngine(
    title,
    (ctx) => {
      let operations: Operation[] = [];
      let validator: ResponseValidator;
      let context: FuzzContext;

      before(async () => {
        const t: TestApp = ctx();
        const world = await seedWorld(t, 'a');
        const free = await t.community('free', 'Free community');
        const webhookEndpointIds = await createWebhookEndpoints(t, world.auth, 2);
        // A change with a webhook, fanned out: delivery ids POST /webhook_deliveries/{id}/redeliver finds.
        await t.request({
          method: 'POST',
          url: '/admin/v0/members',
          headers: world.auth,
          payload: { email: 'fuzz-redeliver@example.com', full_name: 'Fuzz Redeliver' },
        });
        await drainWebhookOutbox(t.database);
        const deliveryIds = (await t.database.db.selectFrom('webhook_deliveries').select('id').execute()).map((r) => r.id);
        const award = await createAward({ database: t.database, clock: t.clock, communityId: world.communityId }, { name: 'Fuzz award' });
        // Console links (POST /console/sessions): each works once, so enough of them for some sign-ins to succeed.
        const consoleTokens: string[] = [];
        for (let i = 0; i < 40; i++) {
          const link = await createConsoleLink(
            { database: t.database, clock: t.clock, communityId: world.communityId },
            durationMs(3_600_000),
          );
          consoleTokens.push(link.token);
        }
        const deps = { database: t.database, clock: t.clock };
        // The fuzzing key holds every permission, key management too (`all` never implies api_keys:write);
        // spare keys are what the key routes rotate and revoke (never the fuzzing key itself).
        const fuzzKey = await createApiKey({ ...deps, communityId: world.communityId }, { label: 'fuzz', permissions: everyPermission });
        const spareKeyIds: string[] = [];
        for (let i = 0; i < 3; i++)
          spareKeyIds.push((await createApiKey({ ...deps, communityId: world.communityId }, { label: `spare ${i}` })).id);
        const calendarFeedIds: string[] = [];
        for (let i = 0; i < 3; i++)
          calendarFeedIds.push(
            (await createCalendarFeed({ ...t.app.services, communityId: world.communityId }, { label: `Fuzz ${i}` })).id,
          );
        const document = await fetchDocument(t);
        operations = operationsOf(document).sort(byWriteImpact);
        validator = new ResponseValidator(document);
        context = {
          enterpriseAuth: `Bearer ${fuzzKey.key}`,
          freeAuth: free.auth.authorization,
          sharedIdempotencyKey: randomUUID(),
          pools: {
            calendar_event_id: world.eventIds,
            member_id: [...world.plainMemberIds, ...world.linkedMemberIds],
            group_id: world.groupIds,
            feed_id: [...world.feedIds, 'home'],
            post_id: world.postIds,
            chat_user_id: world.chatUserIds,
            profile_id: world.profileIds,
            email: [...world.emails, ...world.memberEmails],
            tag_ids: [world.tagIds.join(','), world.tagIds[0] as string],
            // The webhook endpoint id (DELETE /webhook_endpoints/{id}) and a target the fuzz app accepts.
            id: [...webhookEndpointIds, ...deliveryIds, ...spareKeyIds, ...calendarFeedIds],
            award_id: [award.id],
            token: consoleTokens,
            url: [webhookTarget],
            // Search queries that find something, in the query language (hostile ones come from the arbitraries).
            q: ['post', 'the community', '"weekly update"', 'launch*', 'team -draft', 'café', '東京'],
            // POST /files: a name with an extension, bytes of a few kinds, and a size that matches them.
            filename: ['photo.png', 'notes.txt'],
            file: ['%PDF-1.4 fuzz', '<svg xmlns="http://www.w3.org/2000/svg"/>', 'plain bytes'],
            size: [fileLengthMarker],
          },
        };
      });

      it('fuzzes every operation of the document', () => {
        assert.deepEqual(
          operations.map((o) => o.name),
          names,
        );
      });

      names.forEach((name, index) => {
        it(
          `${name}: every response documented, enveloped, valid (seed ${options.seed + index}, ${options.runs} runs)`,
          {
            timeout: options.timeoutMs,
          },
          async (test) => {
            const operation = operations[index];
            assert.ok(operation?.name === name, 'operations changed between the listing and the run');
            const statuses = new Map<number, number>();
            await fc.assert(
              fc.asyncProperty(requestArb(operation, context), async (request) => {
                const response = await ctx().app.inject({
                  method: request.method as 'GET',
                  url: request.url,
                  headers: request.headers,
                  payload: request.payload,
                });
                statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
                const problem = responseProblem(operation, response, validator);
                assert.equal(problem, null, `${operation.name}: ${problem}\nrequest: ${summarise(request)}`);
                assertNoPollution();
              }),
              { seed: options.seed + index, numRuns: options.runs, endOnFailure: true, includeErrorInReport: true },
            );
            test.diagnostic(`statuses: ${JSON.stringify(Object.fromEntries(statuses))}`);
            // A generator that never gets past validation fuzzes nothing: some requests must succeed,
            // but where success needs the outside world, which the fuzz app does not have.
            const cannotSucceed = cannotSucceedHere.get(operation.name);
            if (cannotSucceed) {
              test.diagnostic(`no 2xx expected: ${cannotSucceed}`);
              return;
            }
            const successes = [...statuses].filter(([status]) => status < 300).reduce((sum, [, n]) => sum + n, 0);
            assert.ok(
              successes > 0,
              `${operation.name}: no 2xx among ${options.runs} requests: ${JSON.stringify(Object.fromEntries(statuses))}`,
            );
          },
        );
      });
    },
    fuzzAppOptions,
  );
}
