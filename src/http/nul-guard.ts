import type { FastifyInstance, FastifyRequest } from 'fastify';
import { validationFailed } from '../errors.js';

const parts: [keyof FastifyRequest & ('params' | 'query' | 'body'), string][] = [
  ['params', 'path'],
  ['query', 'query'],
  ['body', 'body'],
];

/**
 * True when any string or key in the value holds U+0000. The common answer is no, so this walk
 * builds no names (findNul does, once something was found). Iterative: bodies may nest deeply.
 */
function containsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (typeof value !== 'object' || value === null) return false;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const current = stack.pop();
    if (typeof current === 'string') {
      if (current.includes('\u0000')) return true;
    } else if (Array.isArray(current)) {
      for (const item of current) stack.push(item);
    } else if (typeof current === 'object' && current !== null) {
      for (const key of Object.keys(current)) {
        if (key.includes('\u0000')) return true;
        stack.push((current as Record<string, unknown>)[key]);
      }
    }
  }
  return false;
}

/** The dotted name of the first string (or key) holding U+0000 in a value, or null. Iterative: bodies may nest deeply. */
function findNul(value: unknown, prefix: string): string | null {
  const stack: [unknown, string][] = [[value, prefix]];
  while (stack.length > 0) {
    const [current, path] = stack.pop() as [unknown, string];
    if (typeof current === 'string') {
      if (current.includes('\u0000')) return path;
    } else if (Array.isArray(current)) {
      current.forEach((item, index) => {
        stack.push([item, `${path}[${index}]`]);
      });
    } else if (typeof current === 'object' && current !== null) {
      for (const [key, item] of Object.entries(current)) {
        if (key.includes('\u0000')) return path;
        stack.push([item, `${path}.${key}`]);
      }
    }
  }
  return null;
}

/**
 * Refuses U+0000 anywhere in the path, query or body with a 400. PostgreSQL text cannot hold it
 * (the insert or even the lookup fails, which would be a 500) and SQLite would store it: refusing
 * it up front keeps both engines alike and no legitimate value of this API contains it.
 */
export function registerNulGuard(app: FastifyInstance): void {
  app.addHook('preValidation', (request, _reply, done) => {
    for (const [part, label] of parts) {
      if (!containsNul(request[part])) continue;
      const field = findNul(request[part], label) ?? label;
      return done(validationFailed(field, 'must not contain the NUL character (U+0000)'));
    }
    done();
  });
}
