import { type TSchema, Type } from '@sinclair/typebox';
import { uuidPatternSource } from '../shared/ids.js';

/** The error envelope of every failure. */
export const ErrorBodySchema = Type.Object(
  {
    success: Type.Literal(false),
    error: Type.Object({
      code: Type.String({ description: 'Stable machine-readable code.' }),
      message: Type.String({ description: 'What went wrong, naming the field where there is one.' }),
      hint: Type.String({ description: 'What to do about it.' }),
    }),
  },
  { $id: 'ErrorBody', title: 'Error' },
);

export const statusDescriptions: Record<number, string> = {
  400: 'Invalid request (validation_failed, invalid_json, idempotency_key_invalid, ...).',
  401: 'Missing, malformed, unknown or revoked API key (unauthorized), or an expired one (api_key_expired).',
  403: 'The community plan does not include this endpoint (plan_required), or the key lacks its permission (insufficient_scope).',
  404: "Not found in the caller's community.",
  409: 'Conflict.',
  413: 'Request body over 1 MiB.',
  415: 'Unsupported Content-Type.',
  422: 'Idempotency-Key reused with a different request.',
  429: 'Rate limit exceeded (see Retry-After).',
  500: 'Unexpected error.',
  503: 'The database is unavailable (database_unavailable), or the request ran past its deadline and was not carried out (request_timeout); see Retry-After.',
};

/** Response schemas for the given error statuses (plus the ones every route can return). */
export function errorResponses(...statuses: number[]): Record<number, TSchema> {
  const all = new Set([...statuses, 401, 429, 500, 503]);
  const responses: Record<number, TSchema> = {};
  for (const status of [...all].sort()) {
    responses[status] = Type.Ref('ErrorBody', { description: statusDescriptions[status] ?? 'Error.' });
  }
  return responses;
}

/** Error statuses of a mutating route that accepts Idempotency-Key. */
export const idempotentErrorStatuses = [400, 409, 422] as const;

/** ISO 8601 UTC timestamp. */
export const Timestamp = (options: { description?: string } = {}) => Type.String({ format: 'date-time', ...options });

/** UUID string. */
export const Uuid = (options: { description?: string } = {}) => Type.String({ format: 'uuid', pattern: uuidPatternSource, ...options });

/** A string enum as a plain JSON Schema `enum` (clear validation messages, compact OpenAPI). */
export function StringEnum<const T extends readonly string[]>(values: T, options: { description?: string; default?: T[number] } = {}) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

/** `true`/`false` as a query string value. */
export const BooleanString = (description: string) => StringEnum(['true', 'false'] as const, { description });

/** The paged list envelope `data` of list responses. */
export function PagedListSchema<T extends TSchema>(record: T) {
  return Type.Object({
    page: Type.Integer({ minimum: 0 }),
    per_page: Type.Integer({ minimum: 1 }),
    count: Type.Integer({ minimum: 0 }),
    total_records: Type.Integer({ minimum: 0 }),
    total_pages: Type.Integer({ minimum: 0 }),
    has_next: Type.Boolean(),
    records: Type.Array(record),
  });
}

/** Header parameters shared by mutating routes. */
export const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(Type.String({ description: 'UUID v4, opt-in: a repeat within 1 hour replays the stored response.' })),
});

/** The query of a plain paged list (`page`, `per_page`), nothing else: `what` names its records in the description. */
export function PageQuerySchema(what: string) {
  return Type.Object(
    {
      page: Type.Integer({ minimum: 0, maximum: 2_147_483_647, default: 0, description: '0-based page number.' }),
      per_page: Type.Integer({ minimum: 1, maximum: 50, default: 10, description: `${what} per page, 1 to 50.` }),
    },
    { additionalProperties: false },
  );
}
