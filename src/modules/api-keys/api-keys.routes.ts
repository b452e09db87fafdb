import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ModuleOptions } from '../../dependencies.js';
import { principalOf } from '../../routing/request-context.js';
import { errorResponses } from '../../schemas/common.schemas.js';
import { ApiKeyMeResponseSchema } from './api-keys.schemas.js';
import { describeApiKey } from './api-keys.service.js';

/** `GET /api_key/me`: the calling key, for clients that must learn what they hold. */
export const apiKeysRoutes: FastifyPluginAsyncTypebox<ModuleOptions> = async (app, { services }) => {
  app.get(
    '/admin/v0/api_key/me',
    {
      config: { operation: 'apiKeys.me' },
      schema: {
        tags: ['API keys'],
        summary: 'Describe the calling API key',
        description: 'The key that signs this request, its community and its permissions; never its secret.',
        response: { 200: ApiKeyMeResponseSchema, ...errorResponses() },
      },
    },
    async (request) => ({
      success: true as const,
      data: await describeApiKey({ database: services.database }, principalOf(request).keyId),
    }),
  );
};
