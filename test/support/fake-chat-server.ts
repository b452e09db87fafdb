/**
 * A fake of Slack's Web API on a real port, for tests that go through @slack/web-api (or any HTTP
 * client). It speaks the wire format Slack documents: POST with a form-encoded or JSON body, the
 * token as `Authorization: Bearer` (or a `token` field), answers `{ok: true, ...}` or
 * `{ok: false, error}` with HTTP 200, and HTTP 429 with `Retry-After` when rate limiting.
 *
 * Methods: auth.test, users.lookupByEmail, admin.users.invite, admin.teams.settings.info,
 * chat.postMessage (any channel of Slack's shape, unless `failChannel` says otherwise),
 * chat.getPermalink (for messages it posted); for the chat sync (bot token): users.list, users.info,
 * conversations.info, conversations.history, conversations.replies (cursor pages as Slack pages
 * them: `response_metadata.next_cursor`, "" on the last page), chat.getPermalink (any message of
 * a known channel) and chat.postMessage (to a channel, or to a user id U…: a direct message from the bot).
 * Channel ids are accepted when they have the shape of Slack's (C… or G…, upper-case
 * alphanumerics); anything else is answered like Slack does, with failed_to_validate_channels.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type FakeChatMethod =
  | 'auth.test'
  | 'users.lookupByEmail'
  | 'admin.users.invite'
  | 'admin.teams.settings.info'
  | 'users.list'
  | 'users.info'
  | 'conversations.info'
  | 'conversations.history'
  | 'conversations.replies'
  | 'chat.postMessage'
  | 'chat.getPermalink';

/** A channel of the fake workspace. */
export interface FakeChannelInput {
  id: string;
  name: string;
  is_private?: boolean;
  is_archived?: boolean;
  num_members?: number;
  purpose?: string;
  topic?: string;
  /** Whether the bot is in the channel (conversations.info's `is_member`); true when absent. */
  bot_is_member?: boolean;
}

/** A message as Slack stores it (ts, user, text, blocks, reactions, files, thread fields...). */
export type FakeMessage = Record<string, unknown> & { ts: string };

/** 'ok' simulates Slack; the others replace (error, rate limit) or delay the simulated answer. */
export type FakeChatBehaviour = 'ok' | { error: string } | { rateLimited: number } | { delayMs: number };

export interface FakeChatUserInput {
  email: string;
  id?: string;
  real_name?: string;
  first_name?: string;
  last_name?: string;
  is_admin?: boolean;
  is_bot?: boolean;
  deleted?: boolean;
  image_72?: string;
  image_original?: string;
  /** Further renditions (`image_24` ... `image_1024`), as Slack lists them in the profile. */
  images?: Record<string, string>;
}

export interface FakeChatCall {
  method: string;
  params: Record<string, unknown>;
  /** The token the client presented, or null when none was sent. */
  token: string | null;
}

export interface FakeChatInvitation {
  email: string;
  channel_ids: string[];
  real_name: string | null;
}

export interface FakeChatMessage {
  channel: string;
  ts: string;
  text: string;
  blocks: unknown;
}

export interface FakeChatServer {
  /** Base URL ending in `/api/`, usable as `slackApiUrl`. */
  url: string;
  validToken: string;
  teamId: string;
  calls: FakeChatCall[];
  invitations: FakeChatInvitation[];
  /** Messages posted through chat.postMessage, in order. */
  messages: FakeChatMessage[];
  /** Makes chat.postMessage to this channel fail with Slack's `error` (e.g. not_in_channel, channel_not_found). */
  failChannel(channelId: string, error: string): void;
  /** Adds a workspace user and returns its id. */
  addUser(user: FakeChatUserInput): string;
  setBehaviour(method: FakeChatMethod, behaviour: FakeChatBehaviour): void;
  setDefaultChannels(ids: string[]): void;
  /** The bot token of the sync (auth.test answers with the bot user and the workspace url). */
  botToken: string;
  /** The workspace address auth.test gives (the base of permalinks). */
  teamUrl: string;
  addChannel(channel: FakeChannelInput): void;
  /** Adds a top-level message to a channel (ts in increasing order, as they are posted). */
  addMessage(channelId: string, message: FakeMessage): void;
  /** Adds a thread reply: the parent's reply_count, latest_reply and reply_users move like Slack's. */
  addReply(channelId: string, threadTs: string, reply: FakeMessage): void;
  /** Changes a stored message in place (reactions, text ...). */
  updateMessage(channelId: string, ts: string, change: Record<string, unknown>): void;
  /** The (after+1)-th call of `method` from now on is answered with HTTP 429 and Retry-After, once. */
  rateLimitOnce(method: FakeChatMethod, after: number, retryAfterSeconds: number): void;
  /** The next `times` calls of `method` are answered with HTTP `status` (a 5xx) and no Slack body. */
  failHttp(method: FakeChatMethod, status: number, times: number): void;
  /** Forgets users, invitations, calls and behaviours (the token and team id stay). */
  reset(): void;
  close(): Promise<void>;
}

const DEFAULT_CHANNELS = ['C0GENERAL'];
const CHANNEL_ID = /^[CG][A-Z0-9]+$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

type Json = Record<string, unknown>;

function parseParams(req: IncomingMessage, body: string): Json {
  const type = req.headers['content-type'] ?? '';
  if (type.startsWith('application/json')) {
    const parsed: unknown = body === '' ? {} : JSON.parse(body);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Json) : {};
  }
  const params: Json = {};
  for (const [key, value] of new URLSearchParams(body)) params[key] = value;
  for (const [key, value] of new URL(req.url ?? '/', 'http://fake').searchParams) params[key] ??= value;
  return params;
}

function bearer(req: IncomingMessage, params: Json): string | null {
  const header = req.headers.authorization;
  if (typeof header === 'string' && header.startsWith('Bearer ')) return header.slice('Bearer '.length);
  return typeof params.token === 'string' ? params.token : null;
}

/** channel_ids as Slack takes them: a comma-separated string (or a JSON array, as the SDK sends). */
function channelList(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  if (typeof value !== 'string' || value.trim() === '') return [];
  const trimmed = value.trim();
  if (trimmed.startsWith('[')) {
    const parsed: unknown = JSON.parse(trimmed);
    return Array.isArray(parsed) ? parsed.filter((v): v is string => typeof v === 'string') : [];
  }
  return trimmed
    .split(',')
    .map((id) => id.trim())
    .filter((id) => id !== '');
}

function send(res: ServerResponse, status: number, body: Json, headers: Record<string, string> = {}): void {
  if (res.destroyed || res.writableEnded) return;
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  res.end(JSON.stringify(body));
}

/** Starts the fake on 127.0.0.1 with an ephemeral port. */
export async function startFakeChatServer(): Promise<FakeChatServer> {
  const validToken = `xoxp-fake-${randomBytes(12).toString('hex')}`;
  const botToken = `xoxb-fake-${randomBytes(12).toString('hex')}`;
  const teamUrl = 'https://fake-team.slack.test/';
  const channels = new Map<string, FakeChannelInput>();
  const history = new Map<string, FakeMessage[]>();
  const replies = new Map<string, FakeMessage[]>();
  const onceLimits = new Map<string, { remaining: number; retryAfter: number }>();
  const httpFailures = new Map<string, { status: number; times: number }>();
  const teamId = 'T0FAKETEAM';
  const users = new Map<string, Json>();
  const invited = new Set<string>();
  const behaviours = new Map<string, FakeChatBehaviour>();
  const timers = new Set<NodeJS.Timeout>();
  const calls: FakeChatCall[] = [];
  const invitations: FakeChatInvitation[] = [];
  const messages: FakeChatMessage[] = [];
  const failingChannels = new Map<string, string>();
  let nextTs = 1_763_726_400;
  let defaultChannels = [...DEFAULT_CHANNELS];
  let nextUser = 1;

  const page = <T>(items: T[], params: Json): { items: T[]; next: string } => {
    const limit = Math.min(Math.max(Number(params.limit ?? 100) || 100, 1), 1000);
    const start =
      typeof params.cursor === 'string' && params.cursor !== ''
        ? Number(Buffer.from(params.cursor, 'base64').toString('utf8').split(':')[1])
        : 0;
    const end = start + limit;
    return { items: items.slice(start, end), next: end < items.length ? Buffer.from(`next:${end}`).toString('base64') : '' };
  };

  const syncMethod = (method: string, params: Json): Json | null => {
    const channelId = typeof params.channel === 'string' ? params.channel : '';
    switch (method) {
      case 'users.list': {
        const { items, next } = page([...users.values()], params);
        return { ok: true, members: items, cache_ts: 0, response_metadata: { next_cursor: next } };
      }
      case 'users.info': {
        const user = [...users.values()].find((u) => u.id === params.user);
        return user ? { ok: true, user } : { ok: false, error: 'user_not_found' };
      }
      case 'conversations.info': {
        const channel = channels.get(channelId);
        if (!channel) return { ok: false, error: 'channel_not_found' };
        return {
          ok: true,
          channel: {
            id: channel.id,
            name: channel.name,
            is_channel: !channel.is_private,
            is_private: channel.is_private ?? false,
            is_archived: channel.is_archived ?? false,
            is_member: channel.bot_is_member ?? true,
            created: 1700000000,
            num_members: channel.num_members ?? 0,
            topic: { value: channel.topic ?? '', creator: '', last_set: 0 },
            purpose: { value: channel.purpose ?? '', creator: '', last_set: 0 },
          },
        };
      }
      case 'conversations.history': {
        if (!channels.has(channelId)) return { ok: false, error: 'channel_not_found' };
        const oldest = Number(params.oldest ?? 0);
        const newestFirst = [...(history.get(channelId) ?? [])].reverse().filter((m) => Number(m.ts) >= oldest);
        const { items, next } = page(newestFirst, params);
        return { ok: true, messages: items, has_more: next !== '', response_metadata: { next_cursor: next } };
      }
      case 'conversations.replies': {
        const parent = (history.get(channelId) ?? []).find((m) => m.ts === params.ts);
        if (!parent) return { ok: false, error: 'thread_not_found' };
        const { items, next } = page([parent, ...(replies.get(`${channelId}:${parent.ts}`) ?? [])], params);
        return { ok: true, messages: items, has_more: next !== '', response_metadata: { next_cursor: next } };
      }
      case 'chat.postMessage': {
        if (!/^[CGUW][A-Z0-9]+$/.test(channelId)) return { ok: false, error: 'channel_not_found' };
        const failure = failingChannels.get(channelId);
        if (failure !== undefined) return { ok: false, error: failure };
        if (typeof params.text !== 'string' && params.blocks === undefined) return { ok: false, error: 'no_text' };
        const ts = `${nextTs++}.000100`;
        const blocks = typeof params.blocks === 'string' ? (JSON.parse(params.blocks) as unknown) : (params.blocks ?? null);
        messages.push({ channel: channelId, ts, text: typeof params.text === 'string' ? params.text : '', blocks });
        return { ok: true, channel: channelId, ts, message: { text: params.text, ts } };
      }
      case 'chat.getPermalink': {
        if (!channels.has(channelId) || typeof params.message_ts !== 'string') return { ok: false, error: 'message_not_found' };
        return { ok: true, channel: channelId, permalink: `${teamUrl}archives/${channelId}/p${params.message_ts.replace('.', '')}` };
      }
      default:
        return null;
    }
  };

  const simulate = (method: string, params: Json, token: string | null): Json => {
    if (token === null || token === '') return { ok: false, error: 'not_authed' };
    if (token === botToken) {
      if (method === 'auth.test') {
        return { ok: true, url: teamUrl, team: 'Fake Team', user: 'community-bot', team_id: teamId, user_id: 'U0BOT', bot_id: 'B0BOT' };
      }
      return syncMethod(method, params) ?? { ok: false, error: 'not_allowed_token_type' };
    }
    if (token !== validToken) return { ok: false, error: 'invalid_auth' };
    switch (method) {
      case 'auth.test':
        return { ok: true, url: 'https://fake.slack.test/', team: 'Fake Team', user: 'admin', team_id: teamId, user_id: 'U0ADMIN' };
      case 'users.lookupByEmail': {
        const email = typeof params.email === 'string' ? params.email.trim().toLowerCase() : '';
        const user = users.get(email);
        return user === undefined ? { ok: false, error: 'users_not_found' } : { ok: true, user };
      }
      case 'admin.teams.settings.info':
        if (params.team_id !== teamId) return { ok: false, error: 'team_not_found' };
        return { ok: true, team: { id: teamId, name: 'Fake Team', domain: 'fake', default_channels: [...defaultChannels] } };
      case 'admin.users.invite': {
        if (typeof params.team_id !== 'string' || typeof params.email !== 'string') return { ok: false, error: 'invalid_arguments' };
        if (params.team_id !== teamId) return { ok: false, error: 'team_not_found' };
        const channels = channelList(params.channel_ids);
        if (channels.length === 0) return { ok: false, error: 'invalid_arguments' };
        const email = params.email.trim().toLowerCase();
        if (!EMAIL.test(email)) return { ok: false, error: 'invalid_email' };
        if (!channels.every((id) => CHANNEL_ID.test(id))) return { ok: false, error: 'failed_to_validate_channels' };
        if (users.has(email)) return { ok: false, error: 'already_in_team' };
        if (invited.has(email)) return { ok: false, error: 'already_in_team_invited_user' };
        invited.add(email);
        invitations.push({ email, channel_ids: channels, real_name: typeof params.real_name === 'string' ? params.real_name : null });
        return { ok: true };
      }
      case 'chat.postMessage': {
        const channel = typeof params.channel === 'string' ? params.channel : '';
        if (!CHANNEL_ID.test(channel)) return { ok: false, error: 'channel_not_found' };
        const failure = failingChannels.get(channel);
        if (failure !== undefined) return { ok: false, error: failure };
        if (typeof params.text !== 'string' && params.blocks === undefined) return { ok: false, error: 'no_text' };
        const ts = `${nextTs++}.000100`;
        const blocks = typeof params.blocks === 'string' ? (JSON.parse(params.blocks) as unknown) : (params.blocks ?? null);
        messages.push({ channel, ts, text: typeof params.text === 'string' ? params.text : '', blocks });
        return { ok: true, channel, ts, message: { text: params.text, ts } };
      }
      case 'chat.getPermalink': {
        const found = messages.find((m) => m.channel === params.channel && m.ts === params.message_ts);
        if (!found) return { ok: false, error: 'message_not_found' };
        return {
          ok: true,
          channel: found.channel,
          permalink: `https://fake.slack.test/archives/${found.channel}/p${found.ts.replace('.', '')}`,
        };
      }
      default:
        return { ok: false, error: 'unknown_method' };
    }
  };

  const handle = (req: IncomingMessage, res: ServerResponse, body: string): void => {
    const path = new URL(req.url ?? '/', 'http://fake').pathname;
    if (!path.startsWith('/api/')) {
      send(res, 404, { ok: false, error: 'not_found' });
      return;
    }
    const method = path.slice('/api/'.length);
    let params: Json;
    try {
      params = parseParams(req, body);
    } catch {
      send(res, 200, { ok: false, error: 'invalid_json' });
      return;
    }
    const token = bearer(req, params);
    const { token: _omit, ...recorded } = params;
    calls.push({ method, params: recorded, token });

    const httpFailure = httpFailures.get(method);
    if (httpFailure !== undefined && httpFailure.times > 0) {
      httpFailure.times--;
      res.writeHead(httpFailure.status, { 'content-type': 'text/plain' }).end('upstream error');
      return;
    }
    const once = onceLimits.get(method);
    if (once !== undefined) {
      if (once.remaining === 0) {
        onceLimits.delete(method);
        send(res, 429, { ok: false, error: 'ratelimited' }, { 'retry-after': String(once.retryAfter) });
        return;
      }
      once.remaining--;
    }
    const behaviour = behaviours.get(method) ?? 'ok';
    const answer = (): void => {
      if (behaviour !== 'ok' && 'rateLimited' in behaviour) {
        send(res, 429, { ok: false, error: 'ratelimited' }, { 'retry-after': String(behaviour.rateLimited) });
      } else if (behaviour !== 'ok' && 'error' in behaviour) {
        send(res, 200, { ok: false, error: behaviour.error });
      } else {
        send(res, 200, simulate(method, params, token));
      }
    };
    if (behaviour !== 'ok' && 'delayMs' in behaviour) {
      const timer = setTimeout(() => {
        timers.delete(timer);
        answer();
      }, behaviour.delayMs);
      timers.add(timer);
      return;
    }
    answer();
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => handle(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/api/`,
    validToken,
    botToken,
    teamUrl,
    teamId,
    calls,
    invitations,
    messages,
    failChannel(channelId, error) {
      failingChannels.set(channelId, error);
    },
    addUser(input) {
      const id = input.id ?? `U${String(nextUser++).padStart(8, '0')}`;
      const email = input.email.trim().toLowerCase();
      const realName = input.real_name ?? [input.first_name, input.last_name].filter(Boolean).join(' ');
      const image72 = input.image_72 ?? `https://avatars.fake.slack.test/${id}_72.png`;
      users.set(email || id, {
        id,
        team_id: teamId,
        name: email.split('@')[0],
        deleted: input.deleted ?? false,
        real_name: realName,
        is_admin: input.is_admin ?? false,
        is_owner: false,
        is_bot: input.is_bot ?? false,
        profile: {
          ...(input.email.trim() === '' ? {} : { email: input.email.trim() }),
          ...input.images,
          real_name: realName,
          display_name: realName,
          first_name: input.first_name ?? '',
          last_name: input.last_name ?? '',
          image_72: image72,
          image_512: `https://avatars.fake.slack.test/${id}_512.png`,
          ...(input.image_original === undefined ? {} : { image_original: input.image_original }),
        },
      });
      return id;
    },
    setBehaviour(method, behaviour) {
      behaviours.set(method, behaviour);
    },
    setDefaultChannels(ids) {
      defaultChannels = [...ids];
    },
    addChannel(channel) {
      channels.set(channel.id, { ...channel });
    },
    addMessage(channelId, message) {
      const list = history.get(channelId) ?? [];
      list.push({ type: 'message', ...message });
      history.set(channelId, list);
    },
    addReply(channelId, threadTs, reply) {
      const parent = (history.get(channelId) ?? []).find((m) => m.ts === threadTs);
      if (!parent) throw new Error(`no message ${threadTs} in ${channelId}`);
      const key = `${channelId}:${threadTs}`;
      const list = replies.get(key) ?? [];
      list.push({ type: 'message', thread_ts: threadTs, ...reply });
      replies.set(key, list);
      parent.thread_ts = threadTs;
      parent.reply_count = list.length;
      parent.latest_reply = reply.ts;
    },
    updateMessage(channelId, ts, change) {
      const message = (history.get(channelId) ?? []).find((m) => m.ts === ts);
      if (!message) throw new Error(`no message ${ts} in ${channelId}`);
      Object.assign(message, change);
    },
    rateLimitOnce(method, after, retryAfterSeconds) {
      onceLimits.set(method, { remaining: after, retryAfter: retryAfterSeconds });
    },
    failHttp(method, status, times) {
      httpFailures.set(method, { status, times });
    },
    reset() {
      httpFailures.clear();
      users.clear();
      invited.clear();
      channels.clear();
      history.clear();
      replies.clear();
      onceLimits.clear();
      behaviours.clear();
      calls.length = 0;
      invitations.length = 0;
      messages.length = 0;
      failingChannels.clear();
      defaultChannels = [...DEFAULT_CHANNELS];
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
    },
  };
}
