/** When and how long the client waits before sending a request again. */
export interface RetryPolicy {
  /** Attempts in all, the first one included (1: never retry). */
  maxAttempts: number;
  /**
   * The longest Retry-After the client waits out. A longer one is not waited for: the answer is
   * returned to the caller at once (waiting less than the server asked would only be refused again).
   */
  maxRetryAfterMs: number;
  /** First wait when the answer names no Retry-After (or the request failed in the network); doubled each time. */
  backoffMs: number;
  /** The longest of those waits. */
  maxBackoffMs: number;
}

export const defaultRetryPolicy: RetryPolicy = { maxAttempts: 4, maxRetryAfterMs: 60_000, backoffMs: 500, maxBackoffMs: 8_000 };

/** What the client is about to retry, for logging. */
export interface RetryEvent {
  /** The attempt that failed (1-based). */
  attempt: number;
  method: string;
  url: string;
  /** The status of the failed attempt, or undefined when it failed in the network. */
  status?: number;
  error?: unknown;
  delayMs: number;
}

type Fetch = (request: Request) => Promise<Response>;

/** Statuses that say "the same request may succeed later". */
const retryableStatuses = new Set([429, 503]);

/** Methods whose repetition is harmless whatever happened to the first attempt. */
const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Milliseconds a Retry-After header asks for (delta-seconds or an HTTP date), or undefined when absent or unreadable. */
export function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  // An HTTP date names a day or month; without a letter it is no date (Date.parse reads "-1" as a year).
  const date = /[a-z]/i.test(trimmed) ? Date.parse(trimmed) : Number.NaN;
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

const backoff = (policy: RetryPolicy, attempt: number) => {
  const ceiling = Math.min(policy.maxBackoffMs, policy.backoffMs * 2 ** (attempt - 1));
  // Half fixed, half random: clients that failed together do not all come back together.
  return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
};

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * The wait before the next attempt after this answer, or undefined to hand the answer back.
 * 429 and 503 are retried; so is the 409 of an idempotency key still in flight (it carries Retry-After).
 */
function delayAfter(response: Response, request: Request, policy: RetryPolicy, attempt: number): number | undefined {
  const inFlight = response.status === 409 && request.headers.has('idempotency-key') && response.headers.has('retry-after');
  if (!retryableStatuses.has(response.status) && !inFlight) return undefined;
  const asked = retryAfterMs(response.headers.get('retry-after'));
  if (asked === undefined) return backoff(policy, attempt);
  return asked <= policy.maxRetryAfterMs ? asked : undefined;
}

/** A request may be sent again after a network failure when repeating it cannot do a thing twice. */
const repeatable = (request: Request) => safeMethods.has(request.method) || request.headers.has('idempotency-key');

/** Wraps fetch so that it sends a request again, as the policy allows, after 429, 503 or a network failure. */
export function retryingFetch(policy: RetryPolicy, baseFetch: Fetch, onRetry?: (event: RetryEvent) => void): Fetch {
  return async (request) => {
    for (let attempt = 1; ; attempt++) {
      const last = attempt >= policy.maxAttempts;
      // A body can be read once: every attempt but the last sends a copy.
      const sent = last ? request : request.clone();
      let response: Response;
      try {
        response = await baseFetch(sent);
      } catch (error) {
        if (last || request.signal.aborted || !repeatable(request)) throw error;
        const delayMs = backoff(policy, attempt);
        onRetry?.({ attempt, method: request.method, url: request.url, error, delayMs });
        await sleep(delayMs, request.signal);
        continue;
      }
      const delayMs = last ? undefined : delayAfter(response, request, policy, attempt);
      if (delayMs === undefined) return response;
      // Release the connection of the answer that is thrown away.
      await response.body?.cancel();
      onRetry?.({ attempt, method: request.method, url: request.url, status: response.status, delayMs });
      await sleep(delayMs, request.signal);
    }
  };
}
