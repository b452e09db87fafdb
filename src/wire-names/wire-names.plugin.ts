import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { slackKeysInJson } from './json-text-keys.js';
import { slackSchema } from './slack-schema.js';
import { renameKeysDeep, slackNamesInText, toChatName, type WireNames } from './wire-names.js';

const requestParts = ['body', 'querystring', 'query', 'params'] as const;

/** A route's request schemas in the hosted product's spelling (its answers are renamed as text). */
function renameRouteSchemas(route: RouteOptions): void {
  const schema = route.schema as Record<string, unknown> | undefined;
  if (!schema) return;
  const renamed: Record<string, unknown> = { ...schema };
  for (const part of requestParts) if (schema[part] !== undefined) renamed[part] = slackSchema(schema[part]);
  route.schema = renamed;
}

/** After validation (against the renamed schemas), the handler gets the spec's names it is written for. */
async function specNamesForHandler(request: FastifyRequest): Promise<void> {
  const body = request.body;
  if (typeof body === 'object' && body !== null) request.body = renameKeysDeep(body, toChatName);
  const query = request.query;
  if (typeof query === 'object' && query !== null) request.query = renameKeysDeep(query, toChatName);
}

/** The answer (often spliced JSON text) with its keys in the hosted product's spelling. */
async function slackNamesInAnswer(_request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
  const type = reply.getHeader('content-type');
  if (typeof type !== 'string' || !type.startsWith('application/json')) return payload;
  if (typeof payload === 'string') return slackKeysInJson(payload);
  if (Buffer.isBuffer(payload)) {
    const text = payload.toString('utf8');
    const renamed = slackKeysInJson(text);
    return renamed === text ? payload : renamed;
  }
  return payload;
}

/**
 * Serves the hosted product's spelling when WIRE_NAMES=slack. With the default (`chat`) it
 * registers nothing at all, so the default spelling costs nothing per request. Must be registered
 * before the routes (its onRoute hook sees only routes added after it). The OpenAPI document is
 * renamed by `openApiDocumentTransform`.
 */
export function registerWireNames(app: FastifyInstance, wireNames: WireNames): void {
  if (wireNames === 'chat') return;
  app.addHook('onRoute', renameRouteSchemas);
  app.addHook('preHandler', specNamesForHandler);
  app.addHook('onSend', slackNamesInAnswer);
}

/** The transform of the whole OpenAPI document for the spelling (none for `chat`). */
export function openApiDocumentTransform(wireNames: WireNames): ((document: { openapiObject?: unknown }) => unknown) | undefined {
  if (wireNames === 'chat') return undefined;
  return ({ openapiObject }) => slackSchema(openapiObject);
}

/** The rewrite of error prose for the spelling (none for `chat`): see registerErrorHandler. */
export function errorProse(wireNames: WireNames): ((text: string) => string) | undefined {
  return wireNames === 'chat' ? undefined : slackNamesInText;
}
