// Bench only: the framework floor of a scenario. A minimal Fastify app, with a logger set up as
// the real server's bench runs (pino, level warn: one child logger per request), answering every
// request with the bytes the real server answered (status, headers, body). It parses a JSON body
// like the real server does, and does nothing else. "floor / ceiling" is what Fastify itself costs
// over bare node:http for these bytes on this machine, measured in the same runs; the real server
// can only come close to the ceiling where the floor does.
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';
import type { CapturedResponse } from './ceiling-server.js';

const captured = JSON.parse(readFileSync(process.env.FLOOR_CAPTURE ?? '', 'utf8')) as CapturedResponse;
const body = Buffer.from(captured.bodyBase64, 'base64');
const headers = Object.fromEntries(captured.headers);

const app = Fastify({ logger: { level: 'warn' } });
app.all('/*', (_request, reply) => {
  reply.code(captured.status).headers(headers).send(body);
});
await app.listen({ port: Number(process.env.FLOOR_PORT), host: '127.0.0.1' });
process.once('SIGTERM', () => process.exit(0));
