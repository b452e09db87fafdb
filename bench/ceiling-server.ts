// Bench only: the ceiling of a scenario. A bare node:http server that answers every request with
// the bytes the real server answered for that scenario (status, headers, body), so that the ratio
// "real / ceiling" is what the framework, the database and our code cost on top of HTTP itself.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

/** A response captured from the real server (see capture.ts). */
export interface CapturedResponse {
  status: number;
  headers: [string, string][];
  bodyBase64: string;
}

const captured = JSON.parse(readFileSync(process.env.CEILING_CAPTURE ?? '', 'utf8')) as CapturedResponse;
const body = Buffer.from(captured.bodyBase64, 'base64');
const headers = captured.headers;

const server = createServer((request, response) => {
  // The body of a POST is read (and dropped) like the real server reads it.
  request.resume();
  request.once('end', () => {
    response.writeHead(captured.status, headers);
    response.end(body);
  });
});
server.keepAliveTimeout = 72_000;
server.listen(Number(process.env.CEILING_PORT), '127.0.0.1');
process.once('SIGTERM', () => process.exit(0));
