import type { FastifyServerOptions } from 'fastify';
import type { Config } from '../config.js';

/** The shape of every key this service issues (`ca_` + 32 base64url characters, see api-keys.service). */
const issuedKey = /ca_[A-Za-z0-9_-]{20,}/g;
/** `Bearer <anything>` wherever it appears (a header pasted into a URL or a body). */
const bearerValue = /(bearer(?:\s|%20|\+)+)[^\s"&,;]+/gi;
/** Query parameters whose names say they carry a credential, as clients send keys by mistake. */
const secretParameter = /([?&;][^=&\s"?#]*(?:key|token|secret|password|passwd|auth|credential|signature)[^=&\s"#]*=)[^&\s"#]*/gi;

const redacted = '[redacted]';

/** The text with anything that is or may be an API key replaced by [redacted]. */
export function scrubSecrets(text: string): string {
  return text.replace(issuedKey, redacted).replace(bearerValue, `$1${redacted}`).replace(secretParameter, `$1${redacted}`);
}

type LoggerOption = FastifyServerOptions['logger'];

/**
 * The pino options of the service, with tests' overrides (level, stream) merged in rather than
 * replacing them, so that what tests capture is what production writes. Keys are kept out of
 * logs twice over: the Authorization and Cookie headers are redacted by path, and every line is
 * scrubbed of key-shaped text and credential query parameters as it is written (a key sent in a
 * URL, a path or as a request id by mistake ends up in `url`, `msg` or `reqId`).
 */
export function loggerOptions(config: Config, override: LoggerOption): LoggerOption {
  if (override === false) return false;
  const base = {
    level: config.logLevel,
    redact: { paths: ['req.headers.authorization', 'req.headers.cookie', 'req.headers["x-api-key"]'], censor: redacted },
    hooks: { streamWrite: scrubSecrets },
  };
  return typeof override === 'object' && override !== null ? { ...base, ...override } : base;
}
