import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { type WebhookEventType, webhookEventTypes } from '../../../src/modules/webhooks/rules/event-types.js';
import type { WorkerLog } from '../../../src/modules/webhooks/worker/deliveries.js';
import { principalOf } from '../../../src/routing/request-context.js';
import { StringEnum } from '../../../src/schemas/common.schemas.js';
import { writeCommunityData } from '../../../src/write-path/write-community-data.js';

/** A change with the given webhook events, as a writer of community data makes one. */
const EmitBody = Type.Object({
  events: Type.Array(Type.Object({ type: StringEnum(webhookEventTypes), data: Type.Record(Type.String(), Type.Unknown()) })),
  /** Throws after emitting: the change and its webhooks must both vanish. */
  fail: Type.Optional(Type.Boolean()),
});

/**
 * A test-only route that changes nothing but emits the events it is given through the one write
 * path (until the resource writers emit theirs: branch arch converts them), and counts renders.
 */
export function emitRoute(): { renders: { count: number }; register: (app: FastifyInstance) => void } {
  const renders = { count: 0 };
  const register = (app: FastifyInstance) => {
    app.post('/admin/v0/test/webhook-events', { config: { bodyTypes: ['json'] }, schema: { body: EmitBody } }, async (request) => {
      const body = request.body as { events: { type: WebhookEventType; data: Record<string, unknown> }[]; fail?: boolean };
      const { services } = app;
      await writeCommunityData({ database: services.database, clock: services.clock }, principalOf(request).communityId, async (w) => {
        for (const event of body.events)
          w.emit(event.type, () => {
            renders.count++;
            return event.data;
          });
        if (body.fail) throw new Error('simulated failure after emitting');
      });
      return { success: true };
    });
  };
  return { renders, register };
}

/** The worker's log lines, kept for assertions. */
export function collectingLog(): WorkerLog & { lines: { level: string; message: string; object: Record<string, unknown> }[] } {
  const lines: { level: string; message: string; object: Record<string, unknown> }[] = [];
  const push = (level: string) => (object: Record<string, unknown>, message: string) => lines.push({ level, message, object });
  return { lines, info: push('info'), warn: push('warn'), error: push('error') };
}

/** A calendar event record as the API answers it (the fields the webhook module reads, and a few). */
export const eventRecord = (triggers: boolean, metadata: string | null = '{"crm_campaign":"fall"}') => ({
  id: 'AbCdEf123456',
  title: 'Community call',
  triggers_webhooks: triggers,
  webhook_custom_metadata: metadata,
});
