import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ModuleOptions } from '../../../dependencies.js';
import { commandContext } from '../../../routing/command-context.js';
import { principalOf } from '../../../routing/request-context.js';
import { errorResponses, IdempotencyHeaders } from '../../../schemas/common.schemas.js';
import { createWebhookEndpoint, listWebhookEndpoints, removeWebhookEndpoint, updateWebhookEndpoint } from '../commands/endpoints.js';
import { webhookEventTypeDescriptions, webhookEventTypes } from '../rules/event-types.js';
import {
  CreatedWebhookEndpointResponseSchema,
  CreateWebhookEndpointBodySchema,
  DeletedWebhookEndpointResponseSchema,
  ListWebhookEndpointsResponseSchema,
  UpdateWebhookEndpointBodySchema,
  WebhookEndpointIdParamsSchema,
  WebhookEndpointResponseSchema,
  WebhookEventTypesResponseSchema,
} from '../webhooks.schemas.js';

/*
 * GET/POST /webhook_endpoints, DELETE /webhook_endpoints/{id}; the console's extensions PATCH
 * /webhook_endpoints/{id} and GET /webhook_event_types (issue 39). Plan (enterprise) and key
 * permission (`webhooks:write`) come from routeRules (src/modules/plan-requirements.ts).
 */
export const webhooksRoutes: FastifyPluginAsyncTypebox<ModuleOptions> = async (app, { services }) => {
  const deps = {
    database: services.database,
    clock: services.clock,
    allowPrivate: services.config.webhooks.allowPrivate,
    ...(services.webhookResolver ? { resolver: services.webhookResolver } : {}),
  };

  app.get(
    '/admin/v0/webhook_endpoints',
    {
      config: { operation: 'webhooks.listEndpoints' },
      schema: {
        tags: ['Webhooks'],
        operationId: 'listWebhookEndpoints',
        summary: "List the community's webhook endpoints (never their secrets)",
        response: { 200: ListWebhookEndpointsResponseSchema, ...errorResponses(400, 403) },
      },
    },
    async (request) => ({ success: true as const, data: await listWebhookEndpoints(services, principalOf(request).communityId) }),
  );

  app.post(
    '/admin/v0/webhook_endpoints',
    {
      config: { operation: 'webhooks.createEndpoint', bodyTypes: ['json'] },
      schema: {
        tags: ['Webhooks'],
        operationId: 'createWebhookEndpoint',
        summary: 'Register a webhook endpoint; the answer holds its signing secret, shown once',
        description:
          'Deliveries follow Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature). The URL must be https and resolve to public addresses only.',
        headers: IdempotencyHeaders,
        body: CreateWebhookEndpointBodySchema,
        response: { 201: CreatedWebhookEndpointResponseSchema, ...errorResponses(400, 403, 409, 413, 415, 422) },
      },
    },
    async (request, reply) => {
      const created = await createWebhookEndpoint(commandContext(request, deps), request.body);
      return reply.code(201).send({ success: true as const, data: created });
    },
  );

  app.delete(
    '/admin/v0/webhook_endpoints/:id',
    {
      config: { operation: 'webhooks.deleteEndpoint' },
      schema: {
        tags: ['Webhooks'],
        operationId: 'deleteWebhookEndpoint',
        summary: 'Remove a webhook endpoint and its pending deliveries',
        params: WebhookEndpointIdParamsSchema,
        response: { 200: DeletedWebhookEndpointResponseSchema, ...errorResponses(400, 403, 404) },
      },
    },
    async (request) => {
      await removeWebhookEndpoint(commandContext(request, services), request.params.id);
      return { success: true as const };
    },
  );

  // ---- Console extensions (issue 39) ----
  const eventTypes = webhookEventTypes.map((type) => ({ type, description: webhookEventTypeDescriptions[type] }));

  app.get(
    '/admin/v0/webhook_event_types',
    {
      config: { operation: 'webhooks.listEventTypes' },
      schema: {
        tags: ['Webhooks', 'extension'],
        operationId: 'listWebhookEventTypes',
        summary: 'The closed list of webhook event types, each with one line saying when it is sent',
        response: { 200: WebhookEventTypesResponseSchema, ...errorResponses(400, 403) },
      },
    },
    async () => ({ success: true as const, data: eventTypes }),
  );

  app.patch(
    '/admin/v0/webhook_endpoints/:id',
    {
      config: { operation: 'webhooks.updateEndpoint', bodyTypes: ['json'] },
      schema: {
        tags: ['Webhooks', 'extension'],
        operationId: 'updateWebhookEndpoint',
        summary: "Change an endpoint's URL or event types, or disable or enable it",
        description:
          'Absent fields are kept. A disabled endpoint receives nothing (its pending deliveries are marked failed unsent) and is listed with `disabled: true` and its reason; enabling it clears the reason and the failing run. The URL is checked by the same rules as at creation. The secret does not change. Answers the endpoint as listed.',
        headers: IdempotencyHeaders,
        params: WebhookEndpointIdParamsSchema,
        body: UpdateWebhookEndpointBodySchema,
        response: { 200: WebhookEndpointResponseSchema, ...errorResponses(400, 403, 404, 409, 413, 415, 422) },
      },
    },
    async (request) => {
      const { community_id: _community, ...endpoint } = await updateWebhookEndpoint(commandContext(request, deps), {
        id: request.params.id,
        change: request.body,
      });
      return { success: true as const, data: endpoint };
    },
  );
};
