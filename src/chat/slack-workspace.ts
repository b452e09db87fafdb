import type * as SlackSdk from '@slack/web-api';
import type { Logger, WebClient, WebClientOptions } from '@slack/web-api';
import { lazyRequire } from '../shared/lazy-require.js';

const slackSdk = lazyRequire<typeof SlackSdk>('@slack/web-api');

import type { DurationMs } from '../shared/time.js';
import { type ChatInviteResult, type ChatPostResult, ChatUnavailableError, type ChatUser, type ChatWorkspace } from './chat-workspace.js';
import { classifySlackError, platformDetail, type SlackFailure, withDeadline } from './slack-errors.js';

export interface SlackWorkspaceOptions {
  token: string;
  /** Base URL of the Web API, e.g. `https://slack.com/api/`. */
  apiUrl: string;
  /** Upper bound of one port operation, all of its Web API calls included. */
  timeoutMs: DurationMs;
  /** Workspace id (T…); found once through auth.test when absent. */
  teamId?: string;
}

// Slack's answers to admin.users.invite for someone who is a member or holds an outstanding
// invitation. `already_invited` is the legacy users.admin.invite code, kept in case a workspace
// still answers with it.
const ALREADY_IN_WORKSPACE = new Set(['already_in_team', 'already_in_team_invited_user', 'already_invited']);

// The SDK logs through the console by default; the service logs invitation outcomes itself.
const silentLogger: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  setLevel: () => undefined,
  getLevel: () => slackSdk().LogLevel.ERROR,
  setName: () => undefined,
};

type RequestInterceptor = NonNullable<WebClientOptions['requestInterceptor']>;

function createClient(token: string, apiUrl: string, timeoutMs: DurationMs): WebClient {
  // Each HTTP request also carries its own abort signal, so a socket that trickles bytes (which
  // resets axios' idle timeout) is still torn down; withDeadline bounds the caller's wait.
  const abortAfterTimeout: RequestInterceptor = (config) => {
    config.signal = AbortSignal.timeout(timeoutMs);
    return config;
  };
  return new (slackSdk().WebClient)(token, {
    slackApiUrl: apiUrl,
    timeout: timeoutMs,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    logger: silentLogger,
    requestInterceptor: abortAfterTimeout,
  });
}

function failedResult(failure: SlackFailure, channelIds: string[]): ChatInviteResult {
  if (failure.kind === 'platform') {
    return { status: 'failed', code: failure.code, channel_ids: channelIds, detail: platformDetail(failure.code, failure.needed) };
  }
  return { status: 'failed', code: failure.code, channel_ids: channelIds, detail: failure.detail };
}

/** Reduces a failure to the port's transport error; Slack's own code is kept when it answered. */
function unavailable(failure: SlackFailure): ChatUnavailableError {
  if (failure.kind === 'platform') return new ChatUnavailableError(failure.code, platformDetail(failure.code, failure.needed));
  return new ChatUnavailableError(failure.code, failure.detail);
}

/** Thrown inside an invitation to stop early with a result that is not Slack's error. */
class InviteStop extends Error {
  constructor(readonly result: ChatInviteResult) {
    super(result.detail);
  }
}

function text(value: string | undefined): string {
  return typeof value === 'string' ? value : '';
}

interface SlackUserLike {
  id?: string;
  deleted?: boolean;
  real_name?: string;
  is_admin?: boolean;
  is_bot?: boolean;
  profile?: {
    email?: string;
    real_name?: string;
    first_name?: string;
    last_name?: string;
    image_72?: string;
    image_original?: string;
    image_1024?: string;
    image_512?: string;
  };
}

/** Maps a users.lookupByEmail user; deactivated accounts count as no user. */
function toChatUser(user: SlackUserLike | undefined, email: string): ChatUser | null {
  if (user === undefined || typeof user.id !== 'string' || user.deleted === true) return null;
  const profile = user.profile ?? {};
  return {
    id: user.id,
    email: text(profile.email) || email,
    real_name: text(profile.real_name) || text(user.real_name),
    first_name: text(profile.first_name),
    last_name: text(profile.last_name),
    is_admin: user.is_admin === true,
    is_bot: user.is_bot === true,
    image_72: text(profile.image_72),
    // Slack only has image_original for uploaded avatars; fall back to its largest rendition.
    image_original: text(profile.image_original) || text(profile.image_1024) || text(profile.image_512) || text(profile.image_72),
  };
}

/** A ChatWorkspace backed by Slack's Web API; every operation settles within opts.timeoutMs. */
export function createSlackWorkspace(opts: SlackWorkspaceOptions): ChatWorkspace {
  const client = createClient(opts.token, opts.apiUrl, opts.timeoutMs);
  let teamId: Promise<string> | null = opts.teamId ? Promise.resolve(opts.teamId) : null;

  const resolveTeamId = (): Promise<string> => {
    if (teamId === null) {
      const pending = client.auth.test().then((res) => {
        if (typeof res.team_id !== 'string' || res.team_id === '') {
          throw new InviteStop({
            status: 'failed',
            code: 'team_id_unknown',
            channel_ids: [],
            detail: 'Slack did not tell which workspace the chat admin token belongs to.',
          });
        }
        return res.team_id;
      });
      // A failed lookup is not memoised: the next invitation asks again.
      pending.catch(() => {
        if (teamId === pending) teamId = null;
      });
      teamId = pending;
    }
    return teamId;
  };

  // admin.users.invite requires at least one channel; with none requested the invitee gets the
  // workspace's default channels, which is where Slack puts new members anyway.
  const defaultChannels = async (team: string): Promise<string[]> => {
    const res = await client.admin.teams.settings.info({ team_id: team });
    const ids = (res.team?.default_channels ?? []).filter((id): id is string => typeof id === 'string' && id !== '');
    if (ids.length === 0) {
      throw new InviteStop({
        status: 'failed',
        code: 'channel_ids_required',
        channel_ids: [],
        detail: 'No channel ids were given and the workspace has no default channels; Slack requires at least one.',
      });
    }
    return ids;
  };

  return {
    async inviteUser({ email, channelIds, fullName }) {
      let channels = [...channelIds];
      try {
        return await withDeadline(opts.timeoutMs, async (): Promise<ChatInviteResult> => {
          const team = await resolveTeamId();
          if (channels.length === 0) channels = await defaultChannels(team);
          const args: Record<string, unknown> = { team_id: team, email: email.trim(), channel_ids: channels.join(',') };
          if (fullName !== undefined && fullName.trim() !== '') args.real_name = fullName.trim();
          await client.apiCall('admin.users.invite', args);
          return { status: 'invited', code: 'ok', channel_ids: channels, detail: 'Invitation sent.' };
        });
      } catch (error) {
        if (error instanceof InviteStop) return { ...error.result, channel_ids: channels };
        const failure = classifySlackError(error);
        if (failure.kind === 'platform' && ALREADY_IN_WORKSPACE.has(failure.code)) {
          const detail =
            failure.code === 'already_in_team'
              ? 'The user is already a member of the workspace.'
              : 'The user already holds an invitation to the workspace; no second one was sent.';
          return { status: 'already_in_workspace', code: failure.code, channel_ids: channels, detail };
        }
        return failedResult(failure, channels);
      }
    },

    async lookupUserByEmail(email) {
      const wanted = email.trim();
      try {
        const res = await withDeadline(opts.timeoutMs, () => client.users.lookupByEmail({ email: wanted }));
        return toChatUser(res.user, wanted);
      } catch (error) {
        const failure = classifySlackError(error);
        if (failure.kind === 'platform' && failure.code === 'users_not_found') return null;
        throw unavailable(failure);
      }
    },

    async postMessage({ channelId, text: message, blocks }): Promise<ChatPostResult> {
      try {
        const res = await withDeadline(opts.timeoutMs, () =>
          client.chat.postMessage({ channel: channelId, text: message, ...(blocks ? { blocks: blocks as never } : {}) }),
        );
        if (typeof res.ts !== 'string' || res.ts === '') {
          return { ok: false, channelId, code: 'chat_bad_response', detail: 'Slack accepted the message but returned no timestamp.' };
        }
        return { ok: true, channelId: typeof res.channel === 'string' && res.channel !== '' ? res.channel : channelId, ts: res.ts };
      } catch (error) {
        const failure = classifySlackError(error);
        const detail = failure.kind === 'platform' ? platformDetail(failure.code, failure.needed) : failure.detail;
        return { ok: false, channelId, code: failure.code, detail };
      }
    },

    async getPermalink(channelId, ts) {
      try {
        const res = await withDeadline(opts.timeoutMs, () => client.chat.getPermalink({ channel: channelId, message_ts: ts }));
        if (typeof res.permalink !== 'string' || res.permalink === '')
          throw new ChatUnavailableError('chat_bad_response', 'Slack returned no permalink.');
        return res.permalink;
      } catch (error) {
        if (error instanceof ChatUnavailableError) throw error;
        throw unavailable(classifySlackError(error));
      }
    },
  };
}

export type VerifySlackTokenResult = { ok: true; teamId: string } | { ok: false; code: string };

/** Checks a token with auth.test (for `chat connect`) and returns the workspace id it belongs to. */
export async function verifySlackToken(opts: { token: string; apiUrl: string; timeoutMs: DurationMs }): Promise<VerifySlackTokenResult> {
  const client = createClient(opts.token, opts.apiUrl, opts.timeoutMs);
  try {
    const res = await withDeadline(opts.timeoutMs, () => client.auth.test());
    if (typeof res.team_id !== 'string' || res.team_id === '') return { ok: false, code: 'team_id_unknown' };
    return { ok: true, teamId: res.team_id };
  } catch (error) {
    return { ok: false, code: classifySlackError(error).code };
  }
}
