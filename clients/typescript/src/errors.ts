/** The error body every failing operation answers (ErrorBody in the OpenAPI document). */
export interface ErrorBody {
  success: false;
  error: { code: string; message: string; hint: string };
}

/** A failed operation: the HTTP status, the server's error code, message and hint. */
export class AdminApiError extends Error {
  override readonly name = 'AdminApiError';
  /** HTTP status of the answer. */
  readonly status: number;
  /** Stable machine-readable code from the server's catalogue (e.g. `not_found`, `rate_limited`). */
  readonly code: string;
  /** What to do about it, as the server says. */
  readonly hint: string;
  /** Seconds the server asked to wait (Retry-After), when it did. */
  readonly retryAfterSeconds: number | undefined;
  /** The server's X-Request-Id, to quote to its operator. */
  readonly requestId: string | undefined;

  constructor(response: Response, body: unknown) {
    const error = isErrorBody(body) ? body.error : undefined;
    super(error?.message ?? `HTTP ${response.status} ${response.statusText}`.trim());
    this.status = response.status;
    this.code = error?.code ?? 'http_error';
    this.hint = error?.hint ?? '';
    const retryAfter = response.headers.get('retry-after');
    this.retryAfterSeconds = retryAfter !== null && /^\d+$/.test(retryAfter.trim()) ? Number(retryAfter) : undefined;
    this.requestId = response.headers.get('x-request-id') ?? undefined;
  }
}

/** Whether a value has the shape of the server's error body. */
export function isErrorBody(value: unknown): value is ErrorBody {
  if (typeof value !== 'object' || value === null || !('error' in value)) return false;
  const error = (value as { error: unknown }).error;
  return typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string';
}

/** The body of a successful result of openapi-fetch, or an AdminApiError thrown for a failed one. */
export function unwrap<Data>(result: { data?: Data; error?: unknown; response: Response }): Data {
  if (result.error !== undefined || !result.response.ok) throw new AdminApiError(result.response, result.error);
  return result.data as Data;
}
