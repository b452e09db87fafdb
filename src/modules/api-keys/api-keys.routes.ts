import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ModuleOptions } from '../../dependencies.js';
import { principalOf } from '../../routing/request-context.js';
import { errorResponses } from '../../schemas/common.schemas.js';
import { describeApiKey } from './api-keys.reads.js';
import { ApiKeyMeResponseSchema } from './api-keys.schemas.js';

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
        // 400: it takes no parameters, but a NUL character in any part is refused (http/nul-guard.ts), as on every route.
        response: { 200: ApiKeyMeResponseSchema, ...errorResponses(400) },
      },
    },
    async (request) => ({
      success: true as const,
      data: await describeApiKey({ database: services.database }, principalOf(request).keyId),
    }),
  );
};
