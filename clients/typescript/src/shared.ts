// What both entry points export besides their spelling's types and createClient.
export type { AdminClient, AdminClientOptions } from './client.js';
export { idempotencyKeys } from './client.js';
export { AdminApiError, type ErrorBody, isErrorBody, unwrap } from './errors.js';
export type { ListPath, ListRecord } from './pagination.js';
export { defaultRetryPolicy, type RetryEvent, type RetryPolicy, retryAfterMs } from './retry.js';
export { type UploadedFile, type UploadInput, uploadFile } from './upload.js';
