import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { ErrorBodySchema } from './common.schemas.js';

/**
 * Registers the OpenAPI 3.1 generator (fed by every route's schema) and the reference page.
 * Must be registered before the routes so that it sees them.
 */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  app.addSchema(ErrorBodySchema);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Community Administration API',
        version: '0.0.0',
        description:
          'Administration API of a community platform built on a team-chat platform: calendar events, members, groups, feeds and posts. Every operation needs `Authorization: Bearer <API_KEY>`.',
      },
      servers: [{ url: '/' }],
      components: {
        securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'API key of one community.' } },
      },
      security: [{ bearerAuth: [] }],
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
  });
  app.addHook('onRoute', (route) => {
    // The documentation pages themselves need no key and do not belong in the document.
    if (route.url.startsWith('/docs')) {
      route.config = { ...(route.config ?? {}), public: true };
    }
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list', deepLinking: true } });
  app.get('/admin/v0/openapi.json', { schema: { hide: true }, config: { public: true } }, async () => app.swagger());
}
