import { type DurationMs, type DurationSeconds, durationMs, durationSeconds, millisOfSeconds } from '../shared/time.js';
/*
 * The bot token's side of the chat port: reading a Slack workspace (users, channels, history) for
 * the sync. Plain fetch instead of @slack/web-api so that rate limits are ours to pace: a 429 waits
 * for its Retry-After and then paces that method at its Slack tier for the rest of the run, while
 * the other methods go on at full speed. Errors carry Slack's code, never the token or a request.
 */

export type Json = Record<string, unknown>;

/** A Slack call that failed: `code` is Slack's error code or one of ours (timeout, chat_unreachable, chat_http_error, chat_bad_response). */
export class ChatReadError extends Error {
  constructor(
    readonly method: string,
    readonly code: string,
  ) {
    super(`${method}: ${code}`);
    this.name = 'ChatReadError';
  }
}

export interface ChatReader {
  /** Calls a Web API method; resolves with Slack's answer when `ok`, else throws ChatReadError. */
  call(method: string, params: Record<string, string | number | boolean | undefined>): Promise<Json>;
}

export interface SlackReaderOptions {
  token: string;
  apiUrl: string;
  timeoutMs: DurationMs;
  /** Told about each rate-limit wait (progress lines). */
  onWait?: (method: string, seconds: DurationSeconds) => void;
  /** For tests: how waiting is done. */
  sleep?: (ms: number) => Promise<void>;
}

/** Slack's documented tiers, as the least interval between calls once a method has been rate limited. */
const tierIntervalMs: Readonly<Record<string, DurationMs>> = {
  'users.list': durationMs(3000), // Tier 2: 20+ per minute
  'conversations.history': durationMs(1200), // Tier 3: 50+ per minute
  'conversations.replies': durationMs(1200),
  'conversations.info': durationMs(600), // Tier 3 burst-friendly; 100 per minute in practice
  'chat.getPermalink': durationMs(600), // Tier 4
};

/** The interval of a method Slack's tiers do not list here. */
const defaultIntervalMs = durationMs(1000);

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const slackCode = /^[a-z0-9_]{1,64}$/;

export function createSlackReader(options: SlackReaderOptions): ChatReader {
  const sleep = options.sleep ?? defaultSleep;
  const base = options.apiUrl.endsWith('/') ? options.apiUrl : `${options.apiUrl}/`;
  const pacedFrom = new Map<string, number>();
  const nextAllowed = new Map<string, number>();

  const once = async (
    method: string,
    body: URLSearchParams,
  ): Promise<{ status: number; retryAfter: DurationSeconds; json: Json | null }> => {
    let response: Response;
    try {
      response = await fetch(`${base}${method}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${options.token}`, 'content-type': 'application/x-www-form-urlencoded' },
        body,
        signal: AbortSignal.timeout(options.timeoutMs),
      });
    } catch (error) {
      const name = error instanceof Error ? error.name : '';
      throw new ChatReadError(method, name === 'TimeoutError' || name === 'AbortError' ? 'timeout' : 'chat_unreachable');
    }
    const retryAfter = Number(response.headers.get('retry-after') ?? '1');
    let json: Json | null = null;
    try {
      const parsed: unknown = await response.json();
      json = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Json) : null;
    } catch {
      json = null;
    }
    return { status: response.status, retryAfter: durationSeconds(Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter : 1), json };
  };

  return {
    async call(method, params) {
      const body = new URLSearchParams();
      for (const [key, value] of Object.entries(params)) if (value !== undefined) body.set(key, String(value));
      for (let attempt = 0; ; attempt++) {
        const wait = (nextAllowed.get(method) ?? 0) - Date.now();
        if (wait > 0) await sleep(wait);
        if (pacedFrom.has(method)) nextAllowed.set(method, Date.now() + (tierIntervalMs[method] ?? defaultIntervalMs));
        let answer: Awaited<ReturnType<typeof once>>;
        try {
          answer = await once(method, body);
        } catch (error) {
          // A network hiccup is retried a few times; a sync must not die of one reset socket.
          if (attempt < 3 && error instanceof ChatReadError) {
            await sleep(500 * 2 ** attempt);
            continue;
          }
          throw error;
        }
        if (answer.status === 429 || answer.json?.error === 'ratelimited') {
          pacedFrom.set(method, Date.now());
          options.onWait?.(method, answer.retryAfter);
          await sleep(millisOfSeconds(answer.retryAfter));
          continue;
        }
        if (answer.status >= 500 && attempt < 3) {
          await sleep(500 * 2 ** attempt);
          continue;
        }
        if (answer.status !== 200) throw new ChatReadError(method, 'chat_http_error');
        if (answer.json === null) throw new ChatReadError(method, 'chat_bad_response');
        if (answer.json.ok !== true) {
          const error = answer.json.error;
          throw new ChatReadError(method, typeof error === 'string' && slackCode.test(error) ? error : 'chat_error');
        }
        return answer.json;
      }
    },
  };
}
