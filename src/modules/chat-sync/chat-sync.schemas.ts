import { Type } from '@sinclair/typebox';
import { StringEnum, Timestamp, Uuid } from '../../schemas/common.schemas.js';

/* The console's Slack page (issue 39): GET /chat/status, POST /chat/sync_jobs, GET /chat/sync_jobs/{id}. */

const Pair = (names: readonly string[]) => Type.Object(Object.fromEntries(names.map((name) => [name, Type.Integer({ minimum: 0 })])));

const SyncProgressSchema = Type.Object(
  {
    resumed: Type.Boolean({ description: "True when the run went on from a stopped run's checkpoints." }),
    users: Pair(['read', 'changed']),
    channels: Pair(['read', 'changed']),
    messages: Pair(['read', 'posts_created', 'posts_updated', 'skipped']),
    rate_limit_waits: Type.Integer({ minimum: 0 }),
    seconds: Type.Number({ minimum: 0 }),
  },
  { title: 'ChatSyncProgress', description: 'The counts `community-admin chat sync --json` prints, as of the last page written.' },
);

const ChatSyncJobSchema = Type.Object(
  {
    id: Uuid(),
    state: StringEnum(['queued', 'running', 'succeeded', 'failed'] as const),
    since: Type.Union([Timestamp(), Type.Null()], { description: 'Messages from this instant on (`chat sync --since`); null: all.' }),
    progress: SyncProgressSchema,
    error: Type.Union([Type.String(), Type.Null()], { description: "Why the job failed (Slack's method and code, or the refusal)." }),
    attempts: Type.Integer({ minimum: 0, description: 'Claims of the job by a worker (more than 1: taken over or resumed).' }),
    created_at: Timestamp(),
    started_at: Type.Union([Timestamp(), Type.Null()]),
    finished_at: Type.Union([Timestamp(), Type.Null()]),
  },
  { title: 'ChatSyncJob' },
);

export const ChatSyncJobResponseSchema = Type.Object({ success: Type.Literal(true), data: ChatSyncJobSchema });

export const StartChatSyncJobBodySchema = Type.Object(
  {
    since: Type.Optional(
      Type.Union([Timestamp(), Type.String({ format: 'date' })], {
        description: 'Only messages from this date or instant on (as `chat sync --since`); absent: the whole history.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const ChatSyncJobIdParamsSchema = Type.Object({ id: Uuid({ description: 'The sync job id.' }) });

const TokenStateSchema = Type.Object({
  stored: Type.Boolean(),
  valid: Type.Union([Type.Boolean(), Type.Null()], {
    description: 'As last checked (a connect checks the token); null when none is stored.',
  }),
  checked_at: Type.Union([Timestamp(), Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()], { description: "Slack's code when the last check failed." }),
});

export const ChatStatusQuerySchema = Type.Object({
  check: Type.Optional(
    Type.Boolean({
      default: false,
      description: 'true: ask Slack now (auth.test with each token, conversations.info of each bound channel) and store what it answered.',
    }),
  ),
});

export const ChatStatusResponseSchema = Type.Object({
  success: Type.Literal(true),
  data: Type.Object(
    {
      community_id: Uuid(),
      team_id: Type.Union([Type.String(), Type.Null()]),
      team_url: Type.Union([Type.String(), Type.Null()]),
      bot_user_id: Type.Union([Type.String(), Type.Null()]),
      admin_token: TokenStateSchema,
      bot_token: TokenStateSchema,
      channels: Type.Array(
        Type.Object({
          channel_id: Type.String(),
          name: Type.Union([Type.String(), Type.Null()]),
          feed_ids: Type.Array(Type.String()),
          bot_is_member: Type.Union([Type.Boolean(), Type.Null()], { description: 'As last checked; null when never checked.' }),
          checked_at: Type.Union([Timestamp(), Type.Null()]),
          error: Type.Union([Type.String(), Type.Null()]),
        }),
        { description: 'The channels bound to feeds.' },
      ),
      last_sync: Type.Union([
        Type.Object({
          at: Timestamp(),
          result: StringEnum(['succeeded', 'failed'] as const),
          error: Type.Union([Type.String(), Type.Null()]),
          job_id: Type.Union([Uuid(), Type.Null()], { description: 'null when the CLI ran it.' }),
        }),
        Type.Null(),
      ]),
      active_job: Type.Union([ChatSyncJobSchema, Type.Null()], { description: 'The queued or running backfill job, if any.' }),
      event_queue: Type.Object({
        length: Type.Integer({ minimum: 0, description: 'Events API deliveries waiting to be applied.' }),
        oldest_received_at: Type.Union([Timestamp(), Type.Null()]),
        lag_seconds: Type.Union([Type.Number({ minimum: 0 }), Type.Null()], {
          description: 'How long the oldest waiting delivery has waited.',
        }),
      }),
    },
    { title: 'ChatStatus' },
  ),
});
