import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { ModuleOptions } from '../../dependencies.js';
import { validationFailed } from '../../errors.js';
import { commandContext } from '../../routing/command-context.js';
import { principalOf } from '../../routing/request-context.js';
import { errorResponses, IdempotencyHeaders, PagedListSchema } from '../../schemas/common.schemas.js';
import { parseDuration, parseDurationOrZero } from '../../shared/duration.js';
import { holdsAll, parsePermissionNames } from '../../shared/permissions.js';
import { durationMs } from '../../shared/time.js';
import { createApiKeyAs, revokeApiKeyAs, rotateApiKeyAs } from './api-keys.commands.js';
import { describeApiKey, listLiveApiKeys } from './api-keys.reads.js';
import {
  ApiKeyIdParamsSchema,
  ApiKeyMeResponseSchema,
  ApiKeyRecordSchema,
  CreateApiKeyBodySchema,
  CreatedApiKeySchema,
  ListApiKeysQuerySchema,
  RevokedApiKeySchema,
  RotateApiKeyQuerySchema,
  RotatedApiKeySchema,
} from './api-keys.schemas.js';

const tags = ['API keys', 'extension'];
const durationRule = 'must be a duration such as 30s, 15m, 24h or 90d (at most 100 years)';
const secretOnce =
  'The answer holds the secret, once: it is never stored in clear, so this route keeps no Idempotency-Key answer (a retry makes another key; the header is ignored).';

/**
 * `GET /api_key/me`, and the key management of the console (issue 39, extensions): list, create,
 * rotate and revoke keys of the caller's community, through the operator commands the CLI runs.
 */
export const apiKeysRoutes: FastifyPluginAsyncTypebox<ModuleOptions> = async (app, { services }) => {
  const deps = { database: services.database, clock: services.clock };

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

  // --- console-api (issue 39): key management, behind api_keys:write ---
  app.get(
    '/admin/v0/api_keys',
    {
      config: { operation: 'apiKeys.list' },
      schema: {
        tags,
        operationId: 'listApiKeys',
        summary: "List the community's API keys (never their secrets)",
        description: 'Extension. Live keys (revoked ones are left out, expired ones stay until revoked), oldest first, paged.',
        querystring: ListApiKeysQuerySchema,
        response: { 200: Type.Object({ success: Type.Literal(true), data: PagedListSchema(ApiKeyRecordSchema) }), ...errorResponses(400) },
      },
    },
    async (request) => ({
      success: true as const,
      data: await listLiveApiKeys(deps, principalOf(request).communityId, request.query.page, request.query.per_page),
    }),
  );

  app.post(
    '/admin/v0/api_keys',
    {
      config: { operation: 'apiKeys.create', bodyTypes: ['json'], answersSecret: true },
      schema: {
        tags,
        operationId: 'createApiKey',
        summary: 'Create an API key of the community (its secret answered once)',
        description: `Extension, as \`community-admin key create\`. A key holds \`api_keys:write\` only when it is named (\`all\` never implies it), and can only be given permissions the calling key holds itself (403 insufficient_scope). ${secretOnce}`,
        body: CreateApiKeyBodySchema,
        response: {
          201: Type.Object({ success: Type.Literal(true), data: CreatedApiKeySchema }),
          ...errorResponses(400, 403, 413, 415),
        },
      },
    },
    async (request, reply) => {
      const { label, permissions: names, expires_in: expiresIn } = request.body;
      const held = parsePermissionNames(names);
      // The schema admits only known names: this is its guard in types.
      if (typeof held === 'object' && 'unknown' in held) throw validationFailed('body.permissions', `unknown permission "${held.unknown}"`);
      const expiresInMs = expiresIn === undefined ? undefined : parseDuration(expiresIn);
      if (expiresInMs === null) throw validationFailed('body.expires_in', durationRule);
      const created = await createApiKeyAs(commandContext(request, deps), {
        callerKeyId: principalOf(request).keyId,
        label,
        permissions: held,
        expiresInMs,
      });
      const data = {
        id: created.id,
        key: created.key,
        label,
        permissions: created.permissions,
        all_permissions: holdsAll(held),
        expires_at: created.expires_at,
      };
      return reply.code(201).send({ success: true as const, data });
    },
  );

  app.post(
    '/admin/v0/api_keys/:id/rotate',
    {
      // An expired key, or a rotation that lost a race, is refused as a whole: the operator command's sentence, naming the path's id.
      config: { operation: 'apiKeys.rotate', answersSecret: true, refusalPath: () => ['path', 'id'] },
      schema: {
        tags,
        operationId: 'rotateApiKey',
        summary: 'Give an API key a new secret (answered once); the old one works until the grace ends',
        description: `Extension, as \`community-admin key rotate\`: same id, label, permissions and expiry. A key of another community, or a revoked one, is 404; a key holding a permission the calling key lacks is 403. ${secretOnce}`,
        params: ApiKeyIdParamsSchema,
        querystring: RotateApiKeyQuerySchema,
        response: {
          200: Type.Object({ success: Type.Literal(true), data: RotatedApiKeySchema }),
          ...errorResponses(400, 403, 404),
        },
      },
    },
    async (request) => {
      const grace = request.query.grace === undefined ? durationMs(24 * 3_600_000) : parseDurationOrZero(request.query.grace);
      if (grace === null) throw validationFailed('querystring.grace', `${durationRule}, or 0`);
      const data = await rotateApiKeyAs(commandContext(request, deps), {
        callerKeyId: principalOf(request).keyId,
        keyId: request.params.id,
        graceMs: grace,
      });
      return { success: true as const, data };
    },
  );

  app.delete(
    '/admin/v0/api_keys/:id',
    {
      config: { operation: 'apiKeys.revoke' },
      schema: {
        tags,
        operationId: 'revokeApiKey',
        summary: 'Revoke an API key at once',
        description:
          'Extension, as `community-admin key revoke`. A key may revoke itself (signing out); it is refused from its next request on. A key of another community, or one already revoked, is 404; a key holding a permission the calling key lacks is 403.',
        headers: IdempotencyHeaders,
        params: ApiKeyIdParamsSchema,
        response: {
          200: Type.Object({ success: Type.Literal(true), data: RevokedApiKeySchema }),
          ...errorResponses(400, 403, 404, 409, 422),
        },
      },
    },
    async (request) => {
      const data = await revokeApiKeyAs(commandContext(request, deps), {
        callerKeyId: principalOf(request).keyId,
        keyId: request.params.id,
      });
      // Refused at once on this instance (the lookup cache forgets it), within a second on the others.
      services.authenticator.forget(data.id);
      return { success: true as const, data };
    },
  );
  // --- end console-api ---
};
