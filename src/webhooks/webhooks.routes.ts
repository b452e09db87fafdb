import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ModuleOptions } from '../dependencies.js';
import { commandDeps } from '../routing/command-context.js';
import { principalOf } from '../routing/request-context.js';
import { errorResponses, IdempotencyHeaders } from '../schemas/common.schemas.js';
import { createWebhookEndpoint, listWebhookEndpoints, removeWebhookEndpoint } from './endpoints.service.js';
import {
  CreatedWebhookEndpointResponseSchema,
  CreateWebhookEndpointBodySchema,
  DeletedWebhookEndpointResponseSchema,
  ListWebhookEndpointsResponseSchema,
  WebhookEndpointIdParamsSchema,
} from './webhooks.schemas.js';

/*
 * GET/POST /webhook_endpoints, DELETE /webhook_endpoints/{id}. Plan (enterprise) and key
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
      const created = await createWebhookEndpoint(commandDeps(request, deps), principalOf(request).communityId, request.body);
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
      await removeWebhookEndpoint(commandDeps(request, services), request.params.id, principalOf(request).communityId);
      return { success: true as const };
    },
  );
};
