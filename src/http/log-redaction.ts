import type { FastifyServerOptions } from 'fastify';
import type PinoPretty from 'pino-pretty';
import type { Config } from '../config.js';
import { lazyRequire } from '../shared/lazy-require.js';

/** Loaded only when logs are pretty: a server in production writes JSON and never needs it. */
const loadPinoPretty = lazyRequire<typeof PinoPretty>('pino-pretty');

/** The shape of every key this service issues (`ca_` + 32 base64url characters, see api-keys.rules). */
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
 * Whether lines are written by pino-pretty: LOG_FORMAT=pretty, or auto with stdout a terminal
 * (a person reading) rather than a pipe or file (a log collector, which wants JSON).
 */
function writesPretty(
  format: Config['logFormat'],
  destination: 'stdout' | 'stream',
  stdoutIsTerminal = process.stdout.isTTY === true,
): boolean {
  if (format === 'pretty') return true;
  return format === 'auto' && destination === 'stdout' && stdoutIsTerminal;
}

/**
 * The pino options of the service, with tests' overrides (level, stream) merged in rather than
 * replacing them, so that what tests capture is what production writes. Keys are kept out of
 * logs twice over: the Authorization and Cookie headers are redacted by path, and every line is
 * scrubbed of key-shaped text and credential query parameters as it is written (a key sent in a
 * URL, a path or as a request id by mistake ends up in `url`, `msg` or `reqId`). The pretty form
 * is made from those scrubbed JSON lines, so both forms hide the same things.
 */
export function loggerOptions(config: Config, override: LoggerOption): LoggerOption {
  if (override === false) return false;
  const base = {
    level: config.logLevel,
    redact: { paths: ['req.headers.authorization', 'req.headers.cookie', 'req.headers["x-api-key"]'], censor: redacted },
    hooks: { streamWrite: scrubSecrets },
  };
  const options = typeof override === 'object' && override !== null ? { ...base, ...override } : base;
  const stream = 'stream' in options ? options.stream : undefined;
  if (!writesPretty(config.logFormat, stream ? 'stream' : 'stdout')) return options;
  const pretty = loadPinoPretty()({
    destination: stream ?? 1,
    colorize: !stream && process.stdout.isTTY === true,
    sync: true,
    translateTime: 'SYS:yyyy-mm-dd HH:MM:ss.l',
    ignore: 'pid,hostname',
  });
  return { ...options, stream: pretty };
}
