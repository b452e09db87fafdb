import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { ErrorBodySchema, statusDescriptions } from '../schemas/common.schemas.js';
import type { RouteRuleTable } from '../shared/route-rules.js';
import { documentedRule, ruleOf } from './plans.js';

/**
 * A query parameter with a default need not be sent: the document says so, whatever the validation
 * schema requires (it lists it as required so that handlers always see a value).
 */
function defaultedOptional(querystring: unknown): unknown {
  const object = querystring as { properties?: Record<string, { default?: unknown }>; required?: string[] };
  if (!object.properties || !object.required) return querystring;
  const properties = object.properties;
  return { ...object, required: object.required.filter((name) => properties[name]?.default === undefined) };
}

/**
 * Registers the OpenAPI 3.1 generator (fed by every route's schema) and the reference page.
 * Must be registered before the routes so that it sees them.
 */
export async function registerOpenApi(
  app: FastifyInstance,
  rules: RouteRuleTable = {},
  options: { transformDocument?: (document: { openapiObject?: unknown }) => unknown } = {},
): Promise<void> {
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
    ...(options.transformDocument ? { transformObject: options.transformDocument as never } : {}),
    // Each operation states its plan and permission from the one table of route rules (x-plan, x-permission, and in words).
    transform: ({ schema: routeSchema, url, route }) => {
      const withQuery = routeSchema?.querystring
        ? { ...routeSchema, querystring: defaultedOptional(routeSchema.querystring) }
        : routeSchema;
      // A body the route streams itself is not validated by Fastify, but is documented all the same.
      const multipart = route.config?.documentedMultipartBody;
      const schema = multipart ? { ...withQuery, body: multipart, consumes: ['multipart/form-data'] } : withQuery;
      const rule = ruleOf(rules, [route.method].flat()[0] ?? '', route.url);
      if (!schema || !rule) return { schema, url };
      const stated = documentedRule(rule);
      const description = schema.description ? `${schema.description}\n\n${stated.sentence}` : stated.sentence;
      // Every route behind a permission or a plan can answer 403, whatever its own schema lists.
      const refusable = rule.permission !== null || rule.plan !== 'free';
      const response = refusable
        ? { ...(schema.response as object | undefined), 403: Type.Ref('ErrorBody', { description: statusDescriptions[403] }) }
        : schema.response;
      return {
        schema: { ...schema, description, response, 'x-plan': stated.plan, 'x-permission': stated.permission } as typeof schema,
        url,
      };
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
