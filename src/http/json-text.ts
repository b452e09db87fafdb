import type { FastifyReply } from 'fastify';

/**
 * Sends a body that is already JSON text as it is: Fastify serialises nothing when the content
 * type is JSON and the payload a string. The text must come from `reply.serialize` of the same
 * route (see ResponseCache), so the response schema stays the one source of the bytes.
 */
export function sendJsonText(reply: FastifyReply, body: string): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(body);
}

/** The route's own response serialiser applied to a 200 payload, as text. */
export function serializeJson(reply: FastifyReply, payload: unknown): string {
  const body = reply.serialize(payload);
  return typeof body === 'string' ? body : Buffer.from(body instanceof ArrayBuffer ? new Uint8Array(body) : body).toString('utf8');
}
