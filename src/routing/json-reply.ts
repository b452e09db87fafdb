import type { FastifyReply } from 'fastify';

/**
 * Sends a body that is already JSON text (or its UTF-8 bytes) as it is: Fastify serialises nothing
 * when the content type is JSON and the payload a string or a Buffer. The text must come from the
 * response schema (a serializer compiled from it, or records checked against it: see
 * docs/performance.md, "Spliced JSON"), so the schema stays the one source of the bytes.
 */
export function sendJsonText(reply: FastifyReply, body: string | Buffer): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(body);
}

/**
 * Sends bytes that may still be coming (a cache miss): synchronously when they are already there,
 * so a handler returning this costs no promise on a hit.
 */
export function sendJsonBytes(reply: FastifyReply, body: Buffer | Promise<Buffer | string>): void | Promise<void> {
  if (Buffer.isBuffer(body)) {
    sendJsonText(reply, body);
    return;
  }
  return body.then((bytes) => {
    sendJsonText(reply, bytes);
  });
}
