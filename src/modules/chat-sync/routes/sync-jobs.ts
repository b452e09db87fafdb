import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ModuleOptions } from '../../../dependencies.js';
import { commandContext } from '../../../routing/command-context.js';
import { principalOf } from '../../../routing/request-context.js';
import { errorResponses, IdempotencyHeaders } from '../../../schemas/common.schemas.js';
import { epochMillis } from '../../../shared/time.js';
import {
  ChatStatusQuerySchema,
  ChatStatusResponseSchema,
  ChatSyncJobIdParamsSchema,
  ChatSyncJobResponseSchema,
  StartChatSyncJobBodySchema,
} from '../chat-sync.schemas.js';
import { startSyncJob } from '../commands/sync-jobs.js';
import { chatStatus } from '../reads/status.js';
import { getSyncJob } from '../reads/sync-jobs.js';
import { ChatSyncJobWorker } from '../worker/sync-jobs.js';

/**
 * The console's Slack page (issue 39, docs/chat.md "Sync jobs and status"): GET /chat/status,
 * POST /chat/sync_jobs and GET /chat/sync_jobs/{id}; and the worker that runs the jobs, started
 * with the server and stopped on close. Plan and permission: routeRules.
 */
export const chatSyncJobsRoutes: FastifyPluginAsyncTypebox<ModuleOptions> = async (app, { services }) => {
  const { database, clock, config, secrets } = services;
  const deps = { database, clock, box: secrets, apiUrl: config.chatApiUrl, timeoutMs: config.chatTimeoutMs };
  const worker = new ChatSyncJobWorker({ ...deps, log: app.log });
  app.addHook('onReady', async () => worker.start());
  app.addHook('onClose', async () => worker.stop());

  app.get(
    '/admin/v0/chat/status',
    {
      config: { operation: 'chat.status' },
      schema: {
        tags: ['Chat', 'extension'],
        operationId: 'getChatStatus',
        summary: "The community's Slack connection: tokens, bot presence, last sync, the running backfill, the event queue",
        description:
          'Read from what is stored, without asking Slack, unless `check=true`: then auth.test is called with each stored token and conversations.info for each bound channel first, and their answers stored. A token is valid as last checked (a connect checks it).',
        querystring: ChatStatusQuerySchema,
        response: { 200: ChatStatusResponseSchema, ...errorResponses(400, 403) },
      },
    },
    async (request) => ({
      success: true as const,
      data: await chatStatus(deps, principalOf(request).communityId, { check: request.query.check === true }),
    }),
  );

  app.post(
    '/admin/v0/chat/sync_jobs',
    {
      config: { operation: 'chat.startSyncJob', bodyTypes: ['json'] },
      schema: {
        tags: ['Chat', 'extension'],
        operationId: 'startChatSyncJob',
        summary: 'Start a backfill from Slack (as `community-admin chat sync`), run by the server; 202 with the job',
        description:
          'One queued or running job per community: a second start is refused with 409 `chat_sync_job_running` naming the running job. Needs a bot connection (400 `chat_bot_not_connected`). Poll GET /chat/sync_jobs/{id} for its progress.',
        headers: IdempotencyHeaders,
        body: StartChatSyncJobBodySchema,
        response: { 202: ChatSyncJobResponseSchema, ...errorResponses(400, 403, 409, 413, 415, 422) },
      },
    },
    async (request, reply) => {
      const since = request.body.since === undefined ? null : epochMillis(Date.parse(request.body.since));
      const job = await startSyncJob(commandContext(request, deps), { since });
      worker.wake();
      return reply.code(202).send({ success: true as const, data: job });
    },
  );

  app.get(
    '/admin/v0/chat/sync_jobs/:id',
    {
      config: { operation: 'chat.getSyncJob' },
      schema: {
        tags: ['Chat', 'extension'],
        operationId: 'getChatSyncJob',
        summary: 'A backfill job: its state (queued, running, succeeded, failed), progress counts, times and error',
        params: ChatSyncJobIdParamsSchema,
        response: { 200: ChatSyncJobResponseSchema, ...errorResponses(400, 403, 404) },
      },
    },
    async (request) => ({ success: true as const, data: await getSyncJob(deps, principalOf(request).communityId, request.params.id) }),
  );
};
