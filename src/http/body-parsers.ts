import type { FastifyInstance, FastifyRequest, preParsingHookHandler } from 'fastify';
import { ApiError } from '../errors.js';
import type { BodyType } from '../routing/request-context.js';
import { formEncodedBodies } from './validation.js';

const forbiddenKeys = new Set(['__proto__', 'constructor', 'prototype']);

type FormValue = string | FormValue[] | { [key: string]: FormValue };

/**
 * Parses `application/x-www-form-urlencoded` into nested objects: `user[chat_user_id]=U1` becomes
 * `{user: {chat_user_id: 'U1'}}`, repeated keys (or `a[]`) become arrays.
 */
function parseFormBody(text: string): Record<string, FormValue> {
  const root: Record<string, FormValue> = {};
  for (const [rawKey, value] of new URLSearchParams(text)) {
    const match = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(rawKey);
    if (!match) throw new ApiError('validation_failed', `body.${rawKey}: malformed form field name`);
    const segments = [match[1] as string, ...[...(match[2] ?? '').matchAll(/\[([^[\]]*)\]/g)].map((m) => m[1] as string)];
    if (segments.length > 5) throw new ApiError('validation_failed', `body.${rawKey}: nested too deeply`);
    let target: Record<string, FormValue> = root;
    for (let i = 0; i < segments.length; i++) {
      const segment = segments[i] as string;
      if (forbiddenKeys.has(segment)) throw new ApiError('validation_failed', `body.${rawKey}: is not allowed`);
      const last = i === segments.length - 1;
      const nextIsArrayMarker = segments[i + 1] === '';
      if (last || nextIsArrayMarker) {
        if (segment === '') throw new ApiError('validation_failed', `body.${rawKey}: malformed form field name`);
        const existing = Object.hasOwn(target, segment) ? target[segment] : undefined;
        if (existing === undefined) target[segment] = nextIsArrayMarker ? [value] : value;
        else if (Array.isArray(existing)) existing.push(value);
        else if (typeof existing === 'string') target[segment] = [existing, value];
        else throw new ApiError('validation_failed', `body.${rawKey}: conflicts with another field`);
        break;
      }
      const existing = Object.hasOwn(target, segment) ? target[segment] : undefined;
      if (existing === undefined) {
        const child: Record<string, FormValue> = {};
        target[segment] = child;
        target = child;
      } else if (typeof existing === 'object' && !Array.isArray(existing)) {
        target = existing;
      } else {
        throw new ApiError('validation_failed', `body.${rawKey}: conflicts with another field`);
      }
    }
  }
  return root;
}

/** Deepest JSON nesting accepted: far beyond any body of the API, far below what recursion survives. */
const maxJsonDepth = 64;

/**
 * True when the JSON text nests arrays or objects deeper than `max`, scanned without parsing (and
 * without recursion), so that no later recursive walk (validation, idempotency fingerprints) can
 * be driven into a stack overflow by a body such as 100,000 opening brackets.
 */
function jsonTooDeep(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === 0x5c) i++;
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x5b || code === 0x7b) {
      if (++depth > max) return true;
    } else if (code === 0x5d || code === 0x7d) depth--;
  }
  return false;
}

const mediaTypes: Record<BodyType, string> = {
  json: 'application/json',
  form: 'application/x-www-form-urlencoded',
  multipart: 'multipart/form-data',
};

function mediaType(request: FastifyRequest): string | null {
  const header = request.headers['content-type'];
  return header ? (header.split(';')[0] ?? '').trim().toLowerCase() : null;
}

/**
 * Registers the form parser and the per-route Content-Type rule: a route declares the encodings it
 * accepts (`config.bodyTypes`); any other (or a missing one, where the route takes a body) is a 415.
 */
export function registerBodyParsers(app: FastifyInstance): void {
  // An empty JSON body is no body: bodiless operations (deactivate, delete) must not fail because a
  // client always sends Content-Type: application/json. Routes that need a body still get a 400.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (String(body).trim() === '') {
      done(null, undefined);
      return;
    }
    if (jsonTooDeep(String(body), maxJsonDepth)) {
      done(new ApiError('validation_failed', `body: nested deeper than ${maxJsonDepth} levels`), undefined);
      return;
    }
    parseJson(request, String(body), done);
  });
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    try {
      const parsed = parseFormBody(body as string);
      formEncodedBodies.add(parsed);
      done(null, parsed);
    } catch (error) {
      done(error as Error, undefined);
    }
  });

  // Attached to the routes that declare encodings only: the others take no body to check.
  app.addHook('onRoute', (route) => {
    const accepted: BodyType[] | undefined = route.config?.bodyTypes;
    if (!accepted) return;
    const allowed = new Set<string>(accepted.map((t) => mediaTypes[t]));
    const refusal = () =>
      new ApiError('unsupported_media_type', `Content-Type must be ${[...allowed].join(' or ')}.`, {
        hint: `Send the body with Content-Type: ${[...allowed][0]}.`,
      });
    const checkType: preParsingHookHandler = (request, _reply, payload, done) => {
      const type = mediaType(request);
      if (type === null || !allowed.has(type)) done(refusal(), payload);
      else done(null, payload);
    };
    route.preParsing = [...(route.preParsing === undefined ? [] : [route.preParsing].flat()), checkType];
  });
}
