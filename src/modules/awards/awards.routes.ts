import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ModuleOptions } from '../../dependencies.js';
import { refusalAsValidationFailed } from '../../errors.js';
import { commandDeps } from '../../routing/command-context.js';
import { principalOf } from '../../routing/request-context.js';
import { errorResponses, IdempotencyHeaders } from '../../schemas/common.schemas.js';
import { SecretBox } from '../../shared/secret-box.js';
import { assignAward } from './awards.commands.js';
import { awardIdFromPath } from './awards.rules.js';
import { AssignAwardBodySchema, AssignAwardResponseSchema, AwardIdParamsSchema } from './awards.schemas.js';
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
      config: { operation: 'awards.assign', bodyTypes: ['json'] },
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
      await assignAward(commandDeps(request, services), principalOf(request).communityId, awardId, request.body).catch((error: unknown) => {
        throw refusalAsValidationFailed(error);
      });
      worker.wake();
      return { success: true as const };
    },
  );
};
