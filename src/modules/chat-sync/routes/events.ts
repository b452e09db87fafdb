import type { FastifyPluginAsync } from 'fastify';
import type { ModuleOptions } from '../../../dependencies.js';
import { ApiError } from '../../../errors.js';
import { SecretBox } from '../../../shared/secret-box.js';
import type { EpochMillis } from '../../../shared/time.js';
import { selectConnectedTeamIds } from '../queries/connections.js';
import { enqueueEvent } from '../queries/event-queue.js';
import { type SyncConnection, selectSyncConnectionByTeam } from '../reads/connections.js';
import { checkSlackSignature } from '../rules/signature.js';
import type { SlackObject } from '../rules/slack-records.js';
import { ChatEventWorker } from '../worker/events.js';

const str = (value: unknown): string => (typeof value === 'string' ? value : '');
const header = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);

/** The workspace a delivery is for: `team_id`, or the first authorization's (Enterprise Grid shared channels). */
function teamOf(envelope: SlackObject): string {
  const authorizations = Array.isArray(envelope.authorizations) ? (envelope.authorizations as SlackObject[]) : [];
  return str(envelope.team_id) || str(authorizations[0]?.team_id);
}

/** A per-workspace budget per second, in this process (Slack sends at most ~30k events per hour per workspace). */
class WorkspaceBudget {
  private window = 0;
  private readonly used = new Map<string, number>();
  constructor(private readonly perSecond: number) {}
  take(teamId: string, now: EpochMillis): boolean {
    const window = Math.floor(now / 1000);
    if (window !== this.window) {
      this.window = window;
      this.used.clear();
    }
    const used = (this.used.get(teamId) ?? 0) + 1;
    this.used.set(teamId, used);
    return used <= this.perSecond;
  }
}

/**
 * `POST /chat/events`: Slack's Events API request URL. Public (no API key: Slack signs each
 * request instead) and outside /admin/v0, so the per-address budget of keyless requests does not
 * apply; it has its own per-workspace budget (CHAT_EVENTS_PER_SECOND). A delivery is verified,
 * stored in the queue and acknowledged; the worker of this process applies it.
 */
export const chatEventsRoutes: FastifyPluginAsync<ModuleOptions> = async (app, options) => {
  const { database, clock, config } = options.services;
  const box = new SecretBox(config.secrets);
  const budget = new WorkspaceBudget(config.chatEventsPerSecond);
  const worker = new ChatEventWorker({ database, clock, box, apiUrl: config.chatApiUrl, timeoutMs: config.chatTimeoutMs, log: app.log });
  app.addHook('onReady', async () => worker.start());
  app.addHook('onClose', async () => worker.stop());

  // The signature is over the raw body: keep it as text (this plugin's parsers only).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => done(null, body));

  app.post('/chat/events', { config: { public: true }, schema: { hide: true } as Record<string, unknown> }, async (request, reply) => {
    const raw = typeof request.body === 'string' ? request.body : '';
    let envelope: SlackObject;
    try {
      const parsed: unknown = JSON.parse(raw);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
      envelope = parsed as SlackObject;
    } catch {
      throw new ApiError('invalid_json');
    }
    const now = clock.now();
    const signed = {
      signature: header(request.headers['x-slack-signature']),
      timestamp: header(request.headers['x-slack-request-timestamp']),
    };
    const refuse = (why: string) =>
      new ApiError('unauthorized', `The Slack signature is ${why}.`, {
        hint: "Slack signs each request with the app's signing secret (chat connect --signing-secret); requests older than five minutes are refused.",
      });

    let connection: SyncConnection | undefined;
    if (envelope.type === 'url_verification') {
      // The challenge names no workspace: any connected app's secret that verifies it will do.
      const connections = await selectConnectedTeamIds(database.db);
      for (const { team_id } of connections) {
        const candidate = await selectSyncConnectionByTeam(database.db, box, team_id);
        if (candidate && checkSlackSignature(candidate.signingSecret, signed, raw, now) === 'ok') connection = candidate;
      }
      if (!connection) throw refuse('not valid for any connected workspace');
      return reply.send({ challenge: str(envelope.challenge) });
    }

    const teamId = teamOf(envelope);
    connection = teamId === '' ? undefined : await selectSyncConnectionByTeam(database.db, box, teamId);
    if (!connection)
      throw new ApiError(
        'not_found',
        `No community is connected to workspace ${teamId.replace(/[^A-Z0-9]/g, '').slice(0, 32) || '(none)'}.`,
        { hint: 'Connect it with community-admin chat connect --bot-token ... --signing-secret ...' },
      );
    const check = checkSlackSignature(connection.signingSecret, signed, raw, now);
    if (check !== 'ok') throw refuse(check === 'stale' ? 'too old (more than five minutes)' : check === 'missing' ? 'missing' : 'wrong');
    if (connection.apiAppId !== null && str(envelope.api_app_id) !== connection.apiAppId) throw refuse('from another app');
    if (!budget.take(connection.teamId, now)) {
      throw new ApiError('rate_limited', undefined, { headers: { 'retry-after': '1' } });
    }
    if (envelope.type !== 'event_callback') return reply.code(200).send({ ok: true });
    const eventId = str(envelope.event_id);
    if (eventId === '' || eventId.length > 128) throw new ApiError('validation_failed', 'body.event_id: is required');
    await enqueueEvent(database.db, {
      communityId: connection.communityId,
      eventId,
      eventType: str((envelope.event as SlackObject | undefined)?.type).slice(0, 64),
      body: raw,
      now,
    });
    worker.wake();
    return reply.code(200).send({ ok: true });
  });
};
