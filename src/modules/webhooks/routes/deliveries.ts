import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { ModuleOptions } from '../../../dependencies.js';
import { commandContext } from '../../../routing/command-context.js';
import { principalOf, refusalIn } from '../../../routing/request-context.js';
import { errorResponses, IdempotencyHeaders, PagedListSchema } from '../../../schemas/common.schemas.js';
import { epochMillis } from '../../../shared/time.js';
import { pageWebhookDeliveries, redeliverFailedWebhooks, redeliverWebhookDelivery } from '../commands/deliveries.js';
import { sendTestWebhook } from '../commands/test-send.js';
import {
  ListWebhookDeliveriesQuerySchema,
  RedeliverFailedBodySchema,
  RedeliverFailedResponseSchema,
  WebhookDeliveryIdParamsSchema,
  WebhookDeliverySchema,
  WebhookEndpointIdParamsSchema,
  WebhookTestBodySchema,
  WebhookTestResponseSchema,
} from '../webhooks.schemas.js';

/*
 * POST /webhook_endpoints/{id}/test, GET /webhook_endpoints/{id}/deliveries and
 * POST /webhook_deliveries/{id}/redeliver (docs/webhooks.md); the console's extension POST
 * /webhook_endpoints/{id}/redeliver_failed (issue 39). Plan and permission: routeRules.
 */
export const webhookDeliveriesRoutes: FastifyPluginAsyncTypebox<ModuleOptions> = async (app, { services }) => {
  const sendDeps = {
    database: services.database,
    clock: services.clock,
    wireNames: services.config.wireNames,
    ...services.config.webhooks,
    ...(services.webhookResolver ? { resolver: services.webhookResolver } : {}),
  };

  app.post(
    '/admin/v0/webhook_endpoints/:id/test',
    {
      config: { operation: 'webhooks.testEndpoint', bodyTypes: ['json'] },
      schema: {
        tags: ['Webhooks'],
        operationId: 'testWebhookEndpoint',
        summary: 'Send a signed example event to the endpoint now and answer what the receiver answered',
        description:
          'The event\'s data is an example marked `"test": true`; nothing is stored or retried. A receiver that does not answer, or a target that now breaks the address rules, is answered with `delivered: false` and the error. A disabled endpoint is refused (409).',
        headers: IdempotencyHeaders,
        params: WebhookEndpointIdParamsSchema,
        body: WebhookTestBodySchema,
        response: { 200: WebhookTestResponseSchema, ...errorResponses(400, 403, 404, 409, 413, 415, 422) },
      },
    },
    async (request) => ({
      success: true as const,
      data: await sendTestWebhook(
        { ...sendDeps, communityId: principalOf(request).communityId },
        { endpointId: request.params.id, eventType: request.body.event_type ?? 'member.created' },
      ),
    }),
  );

  app.get(
    '/admin/v0/webhook_endpoints/:id/deliveries',
    {
      config: { operation: 'webhooks.listDeliveries', refusalPath: refusalIn('querystring') },
      schema: {
        tags: ['Webhooks'],
        operationId: 'listWebhookDeliveries',
        summary: "An endpoint's deliveries, newest first, each with its attempts",
        params: WebhookEndpointIdParamsSchema,
        querystring: ListWebhookDeliveriesQuerySchema,
        response: {
          200: Type.Object({ success: Type.Literal(true), data: PagedListSchema(WebhookDeliverySchema) }),
          ...errorResponses(400, 403, 404),
        },
      },
    },
    async (request) => ({
      success: true as const,
      data: await pageWebhookDeliveries(services, principalOf(request).communityId, request.params.id, request.query),
    }),
  );

  app.post(
    '/admin/v0/webhook_deliveries/:id/redeliver',
    {
      config: { operation: 'webhooks.redeliver' },
      schema: {
        tags: ['Webhooks'],
        operationId: 'redeliverWebhookDelivery',
        summary: 'Send a delivery again from now on, with the same webhook-id and a fresh retry schedule',
        description: 'Answers the delivery as it stands now (pending). A delivery of a disabled endpoint is refused (409).',
        headers: IdempotencyHeaders,
        params: WebhookDeliveryIdParamsSchema,
        response: {
          200: Type.Object({ success: Type.Literal(true), data: WebhookDeliverySchema }),
          ...errorResponses(400, 403, 404, 409, 422),
        },
      },
    },
    async (request) => ({
      success: true as const,
      data: await redeliverWebhookDelivery(commandContext(request, services), request.params.id),
    }),
  );

  app.post(
    '/admin/v0/webhook_endpoints/:id/redeliver_failed',
    {
      config: { operation: 'webhooks.redeliverFailed', bodyTypes: ['json'] },
      schema: {
        tags: ['Webhooks', 'extension'],
        operationId: 'redeliverFailedWebhookDeliveries',
        summary: 'Queue every failed delivery of the endpoint since a time again (at most 1000 per call)',
        description:
          'Failed deliveries created at or after `since` are made pending again, oldest first, with the same webhook-id and a fresh retry schedule, in one statement (all of the batch or none). At most 1000 per call: `remaining` says how many failed ones are left; call again to queue them. A disabled endpoint is refused (409).',
        headers: IdempotencyHeaders,
        params: WebhookEndpointIdParamsSchema,
        body: RedeliverFailedBodySchema,
        response: { 200: RedeliverFailedResponseSchema, ...errorResponses(400, 403, 404, 409, 413, 415, 422) },
      },
    },
    async (request) => ({
      success: true as const,
      data: await redeliverFailedWebhooks(commandContext(request, services), {
        endpointId: request.params.id,
        since: epochMillis(Date.parse(request.body.since)),
      }),
    }),
  );
};
