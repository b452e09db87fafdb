import createClient, { type Client, type Middleware } from 'openapi-fetch';
import { type ListArgs, type ListPath, type ListRecord, type PageOf, pagesOf, recordsOf } from './pagination.js';
import { defaultRetryPolicy, type RetryEvent, type RetryPolicy, retryingFetch } from './retry.js';

export interface AdminClientOptions {
  /** Where the server is, e.g. `https://admin.example.org` (operation paths start with /admin/v0). */
  baseUrl: string;
  /** An API key of the community (`community-admin key create`); sent as `Authorization: Bearer <key>`. Empty: no Authorization header (the console's sign-in, which has no key yet). */
  apiKey: string;
  /** Retry behaviour; unset fields keep their defaults (defaultRetryPolicy). */
  retry?: Partial<RetryPolicy>;
  /** Called before each retry, e.g. to log it. */
  onRetry?: (event: RetryEvent) => void;
  /** Makes the Idempotency-Key of a POST, PATCH or DELETE that has none (default: a random UUID v4). */
  idempotencyKey?: () => string;
  /** The fetch to send with (default: globalThis.fetch). */
  fetch?: (request: Request) => Promise<Response>;
  /** Headers sent on every request besides Authorization. */
  headers?: Record<string, string>;
}

/** The openapi-fetch client, plus iteration over paged lists. */
export type AdminClient<Paths extends {}> = Client<Paths> & {
  /** Every record of a paged list, fetching page after page while `has_next` is true. */
  paginate<P extends ListPath<Paths>>(path: P, ...init: ListArgs<Paths, P>): AsyncGenerator<ListRecord<Paths, P>, void, undefined>;
  /** The pages (paged list envelopes) of a list, one request each. */
  pages<P extends ListPath<Paths>>(
    path: P,
    ...init: ListArgs<Paths, P>
  ): AsyncGenerator<PageOf<Paths[P] extends { get: infer O } ? O : never>, void, undefined>;
};

/** Methods the server makes idempotent with a key: a retry of one of them never does it twice. */
const keyedMethods = new Set(['POST', 'PATCH', 'DELETE']);

/** Gives every POST, PATCH and DELETE an Idempotency-Key, once per call, so all its retries carry the same key. */
export function idempotencyKeys(makeKey: () => string = () => crypto.randomUUID()): Middleware {
  return {
    onRequest({ request }) {
      if (!keyedMethods.has(request.method) || request.headers.has('idempotency-key')) return undefined;
      request.headers.set('idempotency-key', makeKey());
      return request;
    },
  };
}

/** A client of the API for the given paths (the generated `paths` of one spelling). */
export function createAdminClient<Paths extends {}>(options: AdminClientOptions): AdminClient<Paths> {
  const policy: RetryPolicy = { ...defaultRetryPolicy, ...options.retry };
  const baseFetch = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const client = createClient<Paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: { ...options.headers, ...(options.apiKey === '' ? {} : { authorization: `Bearer ${options.apiKey}` }) },
    fetch: retryingFetch(policy, baseFetch, options.onRetry),
  });
  client.use(idempotencyKeys(options.idempotencyKey));
  return Object.assign(client, {
    paginate: <P extends ListPath<Paths>>(path: P, ...init: ListArgs<Paths, P>) => recordsOf(client, path, init[0]),
    pages: <P extends ListPath<Paths>>(path: P, ...init: ListArgs<Paths, P>) => pagesOf(client, path, init[0]),
  });
}
