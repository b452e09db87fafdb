import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors.js';
import { sendApiError } from './error-handler.js';
import { scrubSecrets } from './log-redaction.js';

interface KnownPath {
  pattern: RegExp;
  methods: Set<string>;
}

const toPattern = (url: string): RegExp =>
  new RegExp(
    `^${url
      .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
      .replace(/\/:[^/]+/g, '/[^/]+')
      .replace(/\*/g, '.*')}/?$`,
  );

/** JSON 404 for unknown routes, and 405 with Allow for a known path called with another method. */
export function registerNotFound(app: FastifyInstance): void {
  const known = new Map<string, KnownPath>();
  app.addHook('onRoute', (route) => {
    const entry = known.get(route.url) ?? { pattern: toPattern(route.url), methods: new Set<string>() };
    for (const method of [route.method].flat()) entry.methods.add(method);
    known.set(route.url, entry);
  });

  app.setNotFoundHandler((request, reply) => {
    // Echoed in the message (and so in the log line of the refusal): never with a key in it.
    const path = scrubSecrets((request.url.split('?')[0] ?? '/').replace(/\/{2,}/g, '/'));
    const allowed = new Set<string>();
    for (const entry of known.values()) {
      if (entry.pattern.test(path)) for (const method of entry.methods) allowed.add(method);
    }
    if (allowed.size > 0 && !allowed.has(request.method)) {
      const allow = [...allowed].sort().join(', ');
      return sendApiError(
        reply,
        new ApiError('method_not_allowed', `${request.method} is not allowed on ${path}.`, {
          hint: `Use one of: ${allow}.`,
          headers: { allow },
        }),
      );
    }
    return sendApiError(reply, new ApiError('route_not_found', `No route ${request.method} ${path}.`));
  });
}
