import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { ModuleOptions } from '../../dependencies.js';
import { commandContext } from '../../routing/command-context.js';
import { principalOf, refusalIn } from '../../routing/request-context.js';
import { errorResponses, IdempotencyHeaders, PagedListSchema, PageQuerySchema } from '../../schemas/common.schemas.js';
import { SecretBox } from '../../shared/secret-box.js';
import { assignAward, createAward } from './awards.commands.js';
import { listAwardsPage } from './awards.reads.js';
import { awardIdFromPath } from './awards.rules.js';
import {
  AssignAwardBodySchema,
  AssignAwardResponseSchema,
  AwardIdParamsSchema,
  AwardRecordSchema,
  CreateAwardBodySchema,
} from './awards.schemas.js';
import { AwardNotificationWorker } from './awards.worker.js';

/**
 * `POST /awards/{award_id}/assign` (docs/awards.md), and the worker that sends the direct messages
 * it queues: started with the server, woken after each assignment, stopped on close.
 */
export const awardsRoutes: FastifyPluginAsyncTypebox<ModuleOptions> = async (app, { services }) => {
  const { database, clock, config } = services;
  const worker = new AwardNotificationWorker(
    { database, clock },
    { box: new SecretBox(config.secrets), apiUrl: config.chatApiUrl, timeoutMs: config.chatTimeoutMs, log: app.log },
  );
  app.addHook('onReady', async () => worker.start());
  app.addHook('onClose', async () => worker.stop());

  app.post(
    '/admin/v0/awards/:award_id/assign',
    {
      config: { operation: 'awards.assign', bodyTypes: ['json'], refusalPath: refusalIn({ award_id: 'path' }) },
      schema: {
        tags: ['Awards'],
        operationId: 'assignAward',
        summary: 'Give an award to a member',
        description:
          '`recipient` and `sender` each name exactly one of chat_user_id, email or profile_id. Assigning an award the member already holds changes nothing and answers the same. The recipient is told by a Slack direct message when a bot is connected (sent after the answer, retried).',
        headers: IdempotencyHeaders,
        params: AwardIdParamsSchema,
        body: AssignAwardBodySchema,
        response: { 200: AssignAwardResponseSchema, ...errorResponses(400, 403, 404, 409, 413, 415, 422) },
      },
    },
    async (request) => {
      const awardId = awardIdFromPath(request.params.award_id);
      await assignAward(commandContext(request, services), { awardId, body: request.body });
      worker.wake();
      return { success: true as const };
    },
  );

  // --- console-api (issue 39): the awards list and create, as `award list` and `award create` ---
  app.get(
    '/admin/v0/awards',
    {
      config: { operation: 'awards.list' },
      schema: {
        tags: ['Awards', 'extension'],
        operationId: 'listAwards',
        summary: "List the community's awards with how many members hold each",
        description: 'Extension, as `community-admin award list`: oldest first (ties by id), paged, with exact totals.',
        querystring: PageQuerySchema('Awards'),
        response: { 200: Type.Object({ success: Type.Literal(true), data: PagedListSchema(AwardRecordSchema) }), ...errorResponses(400) },
      },
    },
    async (request) => ({
      success: true as const,
      data: await listAwardsPage(services, principalOf(request).communityId, request.query.page, request.query.per_page),
    }),
  );

  app.post(
    '/admin/v0/awards',
    {
      config: { operation: 'awards.create', bodyTypes: ['json'] },
      schema: {
        tags: ['Awards', 'extension'],
        operationId: 'createAward',
        summary: 'Define an award of the community',
        description:
          'Extension, as `community-admin award create`: name (unique in the community), description and emoji (a Slack shortcode). 201 with the award; a name the community already uses is 400 validation_failed.',
        headers: IdempotencyHeaders,
        body: CreateAwardBodySchema,
        response: {
          201: Type.Object({ success: Type.Literal(true), data: AwardRecordSchema }),
          ...errorResponses(400, 403, 409, 413, 415, 422),
        },
      },
    },
    async (request, reply) => {
      const { name, description, emoji } = request.body;
      const award = await createAward(commandContext(request, { database, clock }), {
        name,
        description: description ?? undefined,
        emoji: emoji ?? undefined,
      });
      return reply.code(201).send({ success: true as const, data: award });
    },
  );
  // --- end console-api ---
};
