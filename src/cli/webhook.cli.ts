import type { Command } from 'commander';
import { UserInputError } from '../errors.js';
import { listWebhookDeliveries, redeliverWebhooks } from '../modules/webhooks/commands/deliveries.js';
import {
  createWebhookEndpoint,
  listWebhookEndpoints,
  removeWebhookEndpoint,
  rotateWebhookSecret,
  updateWebhookEndpoint,
  type WebhookEndpointChange,
} from '../modules/webhooks/commands/endpoints.js';
import { sendTestWebhook } from '../modules/webhooks/commands/test-send.js';
import type { WebhookDeliveryView } from '../modules/webhooks/records/deliveries.js';
import { systemClock } from '../shared/clock.js';
import { type DurationMs, durationMs, type EpochMillis, epochMillis, subtractMillis } from '../shared/time.js';
import { cliActor, withDatabase } from './context.js';
import { asOperatorErrors, formatTable, printResult } from './output.js';

const durationUnits: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `24h`, `90m`, `2d`, `0`: a duration in milliseconds. */
function parseDuration(raw: string, option: string): DurationMs {
  if (raw === '0') return durationMs(0);
  const match = raw.match(/^(\d+)([smhd])$/);
  if (!match) throw new UserInputError(`${option} must be a duration such as 24h, 90m or 7d (got "${raw}").`);
  return durationMs(Number(match[1]) * (durationUnits[match[2] as string] as number));
}

/** An instant (ISO 8601) or a duration ago (`2h`). */
function parseSince(raw: string): EpochMillis {
  if (/^\d+[smhd]$/.test(raw)) return subtractMillis(systemClock.now(), parseDuration(raw, '--since'));
  const instant = Date.parse(raw);
  if (Number.isNaN(instant)) throw new UserInputError(`--since must be an ISO 8601 time or a duration such as 2h (got "${raw}").`);
  return epochMillis(instant);
}

/** One line per attempt of a delivery, for the text output of `webhook deliveries`. */
function attemptLines(delivery: WebhookDeliveryView): string[] {
  return delivery.attempt_log.map(
    (attempt) =>
      `  ${delivery.id} attempt at ${attempt.attempted_at}: ${attempt.status ?? 'no answer'} in ${attempt.duration_ms} ms${attempt.error ? ` (${attempt.error})` : ''}`,
  );
}

/** `webhook add|list|update|remove|rotate-secret|test|deliveries|redeliver` (docs/webhooks.md). */
export function registerWebhookCommands(program: Command): void {
  const webhook = program.command('webhook').description('manage outbound webhook endpoints and deliveries');
  webhook
    .command('add')
    .description('register an endpoint (its whsec_ secret is printed once)')
    .requiredOption('--community <id>', 'community id')
    .requiredOption('--url <url>', 'https URL of the receiver')
    .option('--events <types>', 'comma-separated event types (default: every type)')
    .option('--json', 'print JSON')
    .action(async (options: { community: string; url: string; events?: string; json?: boolean }) => {
      const created = await asOperatorErrors(() =>
        withDatabase((database, config) =>
          createWebhookEndpoint(
            { database, clock: systemClock, allowPrivate: config.webhooks.allowPrivate, actor: cliActor(), communityId: options.community },
            {
              url: options.url,
              events: options.events?.split(','),
            },
          ),
        ),
      );
      const { id, url, events, secret } = created;
      printResult(
        { json: Boolean(options.json) },
        { id, url, events, secret },
        `Created webhook endpoint ${id} for ${url} (${events?.join(', ') ?? 'every event type'}).\nSigning secret (shown once; store it now):\n${secret}`,
      );
    });
  webhook
    .command('list')
    .description("list a community's endpoints, with their disabled state")
    .requiredOption('--community <id>', 'community id')
    .option('--json', 'print JSON')
    .action(async (options: { community: string; json?: boolean }) => {
      const endpoints = await asOperatorErrors(() => withDatabase((database) => listWebhookEndpoints({ database }, options.community)));
      const rows = endpoints.map((endpoint) => ({
        ...endpoint,
        events: endpoint.events?.join(',') ?? '*',
        state: endpoint.disabled ? `disabled: ${endpoint.disabled_reason}` : 'active',
      }));
      printResult({ json: Boolean(options.json) }, endpoints, formatTable(rows, ['id', 'url', 'events', 'state', 'created_at']));
    });
  webhook
    .command('update')
    .description("change an endpoint's URL or event types, or disable or enable it (as PATCH /webhook_endpoints/{id})")
    .argument('<endpoint_id>', 'endpoint id')
    .option('--url <url>', 'a new https URL of the receiver')
    .option('--events <types>', 'comma-separated event types, or * for every type')
    .option('--enable', 'enable the endpoint again (clears the disabled reason)')
    .option('--disable', 'disable the endpoint: it receives nothing until enabled')
    .option('--json', 'print JSON')
    .action(async (id: string, options: { url?: string; events?: string; enable?: boolean; disable?: boolean; json?: boolean }) => {
      if (options.enable && options.disable) throw new UserInputError('Give --enable or --disable, not both.');
      const change: WebhookEndpointChange = {
        ...(options.url !== undefined ? { url: options.url } : {}),
        ...(options.events !== undefined ? { events: options.events.trim() === '*' ? null : options.events.split(',') } : {}),
        ...(options.enable ? { enabled: true } : options.disable ? { enabled: false } : {}),
      };
      if (Object.keys(change).length === 0) throw new UserInputError('Give at least one of --url, --events, --enable, --disable.');
      const updated = await asOperatorErrors(() =>
        withDatabase((database, config) =>
          updateWebhookEndpoint(
            { database, clock: systemClock, allowPrivate: config.webhooks.allowPrivate, actor: cliActor(), communityId: null },
            { id, change },
          ),
        ),
      );
      printResult(
        { json: Boolean(options.json) },
        updated,
        `Webhook endpoint ${updated.id}: ${updated.url} (${updated.events?.join(', ') ?? 'every event type'}), ${
          updated.disabled ? `disabled: ${updated.disabled_reason}` : 'active'
        }.`,
      );
    });
  webhook
    .command('remove')
    .description('remove an endpoint and its deliveries')
    .argument('<endpoint_id>', 'endpoint id')
    .option('--json', 'print JSON')
    .action(async (id: string, options: { json?: boolean }) => {
      const removed = await asOperatorErrors(() =>
        withDatabase((database) => removeWebhookEndpoint({ database, clock: systemClock, actor: cliActor(), communityId: null }, id)),
      );
      printResult({ json: Boolean(options.json) }, { id: removed.id, removed: true }, `Removed webhook endpoint ${removed.id}.`);
    });
  webhook
    .command('rotate-secret')
    .description('replace the signing secret; the old one also signs during the grace')
    .argument('<endpoint_id>', 'endpoint id')
    .option('--grace <duration>', 'how long the old secret keeps signing (0 for none)', '24h')
    .option('--json', 'print JSON')
    .action(async (id: string, options: { grace: string; json?: boolean }) => {
      const graceMs = parseDuration(options.grace, '--grace');
      const rotated = await asOperatorErrors(() =>
        withDatabase((database) => rotateWebhookSecret({ database, clock: systemClock, actor: cliActor() }, { id, graceMs })),
      );
      printResult(
        { json: Boolean(options.json) },
        rotated,
        `New signing secret of ${id} (shown once; store it now):\n${rotated.secret}\n${
          rotated.previous_secret_expires_at
            ? `The old secret also signs until ${rotated.previous_secret_expires_at}.`
            : 'The old secret no longer signs.'
        }`,
      );
    });
  webhook
    .command('deliveries')
    .description("an endpoint's latest deliveries, newest first")
    .requiredOption('--endpoint <id>', 'endpoint id')
    .option('--status <status>', 'pending, delivered or failed')
    .option('--limit <n>', 'how many', '100')
    .option('--json', 'print JSON')
    .action(async (options: { endpoint: string; status?: string; limit: string; json?: boolean }) => {
      const limit = Number(options.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 10000) throw new UserInputError('--limit must be an integer from 1 to 10000.');
      const deliveries = await asOperatorErrors(() =>
        withDatabase((database) => listWebhookDeliveries({ database }, options.endpoint, options.status ?? null, limit)),
      );
      const table = formatTable(deliveries, [
        'id',
        'type',
        'status',
        'attempts',
        'last_response_status',
        'last_error',
        'created_at',
        'next_attempt_at',
      ]);
      const attempts = deliveries.flatMap(attemptLines);
      printResult(
        { json: Boolean(options.json) },
        deliveries,
        attempts.length > 0 ? `${table}\n\nAttempts:\n${attempts.join('\n')}` : table,
      );
    });
  webhook
    .command('test')
    .description('send a signed example event to an endpoint now and print what its receiver answered (exit 1 unless 2xx)')
    .argument('<endpoint_id>', 'endpoint id')
    .option('--event <type>', 'the event type of the example', 'member.created')
    .option('--json', 'print JSON')
    .action(async (id: string, options: { event: string; json?: boolean }) => {
      const result = await asOperatorErrors(() =>
        withDatabase((database, config) =>
          sendTestWebhook(
            { database, clock: systemClock, wireNames: config.wireNames, ...config.webhooks, communityId: null },
            { endpointId: id, eventType: options.event },
          ),
        ),
      );
      const answer =
        result.status === null
          ? `no answer after ${result.duration_ms} ms: ${result.error}`
          : `answered ${result.status} in ${result.duration_ms} ms${result.body ? `:\n${result.body}` : ''}`;
      printResult({ json: Boolean(options.json) }, result, `Test ${result.event_type} (${result.webhook_id}) sent to ${id}: ${answer}`);
      if (!result.delivered) process.exitCode = 1;
    });
  webhook
    .command('redeliver')
    .description('send a delivery again (same webhook-id), or every delivery of an endpoint since a time')
    .argument('[delivery_id]', 'delivery id')
    .option('--endpoint <id>', 'endpoint id (with --since)')
    .option('--since <time>', 'ISO 8601 time, or a duration ago such as 2h')
    .option('--json', 'print JSON')
    .action(async (deliveryId: string | undefined, options: { endpoint?: string; since?: string; json?: boolean }) => {
      const byEndpoint = options.endpoint !== undefined || options.since !== undefined;
      if (byEndpoint === (deliveryId !== undefined) || (byEndpoint && (!options.endpoint || !options.since)))
        throw new UserInputError('Give either a delivery id, or both --endpoint ID and --since TIME.');
      const target =
        deliveryId !== undefined ? { deliveryId } : { endpointId: options.endpoint as string, since: parseSince(options.since as string) };
      const count = await asOperatorErrors(() =>
        withDatabase((database) => redeliverWebhooks({ database, clock: systemClock, actor: cliActor() }, target)),
      );
      printResult({ json: Boolean(options.json) }, { redelivered: count }, `Scheduled ${count} delivery(ies) to be sent again now.`);
    });
}
