// Bench only: module hooks that rewrite a few functions of the built server (dist/) as it loads.
//
//   BENCH_VARIANT=no-count   countCalendarEvents and countPosts return BENCH_FIXED_TOTAL (the total
//                            the real server answered for the scenario, so the bytes are the same)
//                            instead of running SELECT COUNT(*): "the same list without the count".
//   BENCH_VARIANT=no-guards  no API-key lookup, no rate limits, no idempotency: every protected route's
//                            guard only sets BENCH_PRINCIPAL. The standard headers and the plan guard stay
//                            (they are the answer and authorisation, not overhead).
//   BENCH_VARIANT=no-outbox  the write path records no webhook deliveries (not even the endpoints
//                            read, on PostgreSQL the one with each write's begin): the baseline of
//                            the outbox's cost (bench/webhooks.ts).
//   BENCH_VARIANT=no-worker  the server sends no webhooks (the delivery worker is not started): the
//                            outbox's cost without the cost of sending (bench/webhooks.ts).
//   BENCH_VARIANT=outbox-floor  no-worker, and the outbox renders nothing: each event wanted is
//                            written with a fixed 40-byte `data`, so what is left is the floor of a
//                            row written in the change's transaction (endpoints read, the row, its
//                            commit), whatever the payload (bench/webhooks.ts).
//
// Every rewrite must match exactly once; if the server's code moved on, loading fails loudly and
// the bench reports the variant as broken rather than measuring something else. (A file that is
// renamed is never seen here: the runner checks each variant's effect once per run, see variants.ts.)

const variant = process.env.BENCH_VARIANT ?? '';

/** @type {Record<string, Array<{ file: string, find: string, replace: string }>>} */
const rewrites = {
  'no-count': [
    {
      file: '/dist/modules/calendar-events/calendar-events.queries.js',
      find: 'export async function countCalendarEvents(',
      replace:
        'export async function countCalendarEvents() { return Number(process.env.BENCH_FIXED_TOTAL ?? 0); }\nasync function countCalendarEventsMeasured(',
    },
    {
      file: '/dist/modules/posts/posts.queries.js',
      find: 'export async function countPosts(',
      replace:
        'export async function countPosts() { return Number(process.env.BENCH_FIXED_TOTAL ?? 0); }\nasync function countPostsMeasured(',
    },
  ],
  'no-guards': [
    {
      file: '/dist/app.js',
      find: 'guardProtectedRoutes(app, (route) => [identify, keyBudget, ...planSteps(routePlan(route))]);',
      replace: [
        'const benchPrincipal = JSON.parse(process.env.BENCH_PRINCIPAL ?? "null");',
        'guardProtectedRoutes(app, (route) => [(request) => { request.principal = benchPrincipal; }, ...planSteps(routePlan(route))]);',
      ].join('\n'),
    },
    { file: '/dist/app.js', find: 'registerIdempotency(app, new IdempotencyService(database, clock));', replace: '' },
  ],
  'no-worker': [{ file: '/dist/main.js', find: 'webhooks.start();', replace: '' }],
  'outbox-floor': [
    { file: '/dist/main.js', find: 'webhooks.start();', replace: '' },
    {
      file: '/dist/modules/webhooks/commands/record-deliveries.js',
      find: 'const data = await entry.render();',
      replace: 'const data = { calendar_event: { triggers_webhooks: true } };',
    },
  ],
  'no-outbox': [
    {
      file: '/dist/write-path/outbox.js',
      find: 'await recordWebhookDeliveries(tx, communityId, entries, millisFromMicros(now), endpoints, withCommit);',
      replace: '',
    },
    {
      // PostgreSQL reads the endpoints with each write's begin: none read, and none found.
      file: '/dist/write-path/write-community-data.js',
      find: "deps.database.engine === 'postgres' ? await readActiveEndpointsAtBegin(tx, communityId) : undefined;",
      replace: "deps.database.engine === 'postgres' ? [] : undefined;",
    },
  ],
};

if (variant !== '' && !rewrites[variant]) throw new Error(`BENCH_VARIANT "${variant}" is not one of ${Object.keys(rewrites).join(', ')}`);

/** @type {import('node:module').LoadHook} */
export async function load(url, context, nextLoad) {
  const result = await nextLoad(url, context);
  const matching = (rewrites[variant] ?? []).filter((rewrite) => url.endsWith(rewrite.file));
  if (matching.length === 0) return result;
  let source = String(result.source ?? '');
  for (const { find, replace } of matching) {
    const at = source.indexOf(find);
    if (at < 0 || source.indexOf(find, at + 1) >= 0)
      throw new Error(`bench variant ${variant}: "${find}" not found exactly once in ${url}`);
    source = source.replace(find, replace);
  }
  return { ...result, source, shortCircuit: true };
}
