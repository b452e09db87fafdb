/**
 * A fake of Slack's Web API on a real port, for tests that go through @slack/web-api (or any HTTP
 * client). It speaks the wire format Slack documents: POST with a form-encoded or JSON body, the
 * token as `Authorization: Bearer` (or a `token` field), answers `{ok: true, ...}` or
 * `{ok: false, error}` with HTTP 200, and HTTP 429 with `Retry-After` when rate limiting.
 *
 * Methods: auth.test, users.lookupByEmail, admin.users.invite, admin.teams.settings.info.
 * Channel ids are accepted when they have the shape of Slack's (C… or G…, upper-case
 * alphanumerics); anything else is answered like Slack does, with failed_to_validate_channels.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type FakeChatMethod = 'auth.test' | 'users.lookupByEmail' | 'admin.users.invite' | 'admin.teams.settings.info';

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

export interface FakeChatServer {
  /** Base URL ending in `/api/`, usable as `slackApiUrl`. */
  url: string;
  validToken: string;
  teamId: string;
  calls: FakeChatCall[];
  invitations: FakeChatInvitation[];
  /** Adds a workspace user and returns its id. */
  addUser(user: FakeChatUserInput): string;
  setBehaviour(method: FakeChatMethod, behaviour: FakeChatBehaviour): void;
  setDefaultChannels(ids: string[]): void;
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
  const teamId = 'T0FAKETEAM';
  const users = new Map<string, Json>();
  const invited = new Set<string>();
  const behaviours = new Map<string, FakeChatBehaviour>();
  const timers = new Set<NodeJS.Timeout>();
  const calls: FakeChatCall[] = [];
  const invitations: FakeChatInvitation[] = [];
  let defaultChannels = [...DEFAULT_CHANNELS];
  let nextUser = 1;

  const simulate = (method: string, params: Json, token: string | null): Json => {
    if (token === null || token === '') return { ok: false, error: 'not_authed' };
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
    teamId,
    calls,
    invitations,
    addUser(input) {
      const id = input.id ?? `U${String(nextUser++).padStart(8, '0')}`;
      const email = input.email.trim().toLowerCase();
      const realName = input.real_name ?? [input.first_name, input.last_name].filter(Boolean).join(' ');
      const image72 = input.image_72 ?? `https://avatars.fake.slack.test/${id}_72.png`;
      users.set(email, {
        id,
        team_id: teamId,
        name: email.split('@')[0],
        deleted: input.deleted ?? false,
        real_name: realName,
        is_admin: input.is_admin ?? false,
        is_owner: false,
        is_bot: input.is_bot ?? false,
        profile: {
          email: input.email.trim(),
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
    reset() {
      users.clear();
      invited.clear();
      behaviours.clear();
      calls.length = 0;
      invitations.length = 0;
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
