import type { Tx } from '../../../db/database.js';
import { toIso } from '../../../shared/clock.js';
import { randomAlphanumericId } from '../../../shared/ids.js';
import { JsonText, stringifyWithJsonText } from '../../../shared/json-text.js';
import type { OutboxEntry } from '../../../shared/outbox-entry.js';
import type { EpochMillis } from '../../../shared/time.js';
import { type ActiveEndpoint, readActiveEndpoints } from '../queries/endpoints.js';
import { insertOutbox } from '../queries/outbox.js';
import { isCalendarEventType, type WebhookEventType } from '../rules/event-types.js';

/*
 * The outbox side of webhooks: in the transaction of a change, one webhook_outbox row per event that
 * some endpoint wants, naming those endpoints; the delivery worker fans it out to one delivery per
 * endpoint after the commit (commands/fan-out.ts). The community's active endpoints are read in that same
 * transaction with one indexed read (queries/outbox.ts), so an endpoint added through any instance is seen by the next
 * write everywhere; with none (the usual case) that read is all a write pays, and nothing is rendered.
 * On SQLite a write that bumps a view's version learns the count of active endpoints from the bump
 * itself (write-community-data.ts) and calls this only when there are some. On PostgreSQL, where a
 * statement is a round trip, every write reads them with its `begin`, in the same message
 * (readActiveEndpointsAtBegin): they are then as of the write's start, which under READ COMMITTED is
 * what a read just before the commit would mostly see too (docs/webhooks.md).
 */

// The parsed `events` of the endpoints seen, by their text: it is parsed on every emitting write otherwise.
const typeLists = new Map<string, ReadonlySet<string>>();

/** The types an endpoint wants; null is every type. */
function wants(endpoint: ActiveEndpoint, type: WebhookEventType): boolean {
  if (endpoint.events === null) return true;
  let types = typeLists.get(endpoint.events);
  if (types === undefined) {
    if (typeLists.size >= 1000) typeLists.clear();
    types = new Set(JSON.parse(endpoint.events) as string[]);
    typeLists.set(endpoint.events, types);
  }
  return types.has(type);
}

/** Whether some of the endpoints wants the type. */
export const someEndpointWants = (endpoints: readonly ActiveEndpoint[], type: WebhookEventType): boolean =>
  endpoints.some((endpoint) => wants(endpoint, type));

/** The fields of a record, or of a JSON text those its renderer exposed. */
const fieldsOf = (value: unknown): Readonly<Record<string, unknown>> | null =>
  value instanceof JsonText ? value.fields : typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : null;

/** The calendar event a calendar_event.* payload is about: the record itself, or its `calendar_event`. */
function calendarEventOf(data: unknown): Readonly<Record<string, unknown>> | null {
  const record = fieldsOf(data);
  if (record === null || 'triggers_webhooks' in record) return record;
  return fieldsOf(record.calendar_event);
}

/** A Standard Webhooks message id: `msg_` and 24 random characters, the same for every endpoint and attempt. */
export const newWebhookId = (): string => `msg_${randomAlphanumericId(24)}`;

/**
 * Writes the outbox rows of a change's webhook events; called by the write path before commit.
 * `endpoints`: the community's active endpoints when the write path read them already.
 * `withCommit` (PostgreSQL): the rows go with the commit, which must be the transaction's next statement.
 */
export async function recordWebhookDeliveries(
  tx: Tx,
  communityId: string,
  entries: readonly OutboxEntry[],
  now: EpochMillis,
  endpoints: readonly ActiveEndpoint[] | undefined,
  withCommit: boolean,
): Promise<void> {
  endpoints ??= await readActiveEndpoints(tx, communityId);
  if (endpoints.length === 0) return;
  let position = 0;
  for (const entry of entries) {
    const targets = endpoints.filter((endpoint) => wants(endpoint, entry.type));
    if (targets.length === 0) continue;
    const data = await entry.render();
    // undefined: the emitter found nothing to send (an event that does not trigger webhooks).
    if (data === undefined) continue;
    if (isCalendarEventType(entry.type) && calendarEventOf(data)?.triggers_webhooks !== true) continue;
    position++;
    await insertOutbox(tx, withCommit, {
      community_id: communityId,
      webhook_id: newWebhookId(),
      type: entry.type,
      // As JSON.stringify({type, timestamp, data}) would write it, with a rendered record's text kept as is.
      payload: `{"type":${JSON.stringify(entry.type)},"timestamp":"${toIso(now)}","data":${stringifyWithJsonText(data)}}`,
      endpoint_ids: JSON.stringify(targets.map((endpoint) => endpoint.id)),
      created_at: now,
      position,
    });
  }
}
