import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';

/** Where `npm install` builds the console (console/dist), from src/http or dist/http alike. */
const defaultConsoleDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'console', 'dist');

/**
 * The console's policy: nothing but this origin (no CDN, no inline script or style, no eval), never
 * framed, no <base> rewriting; no Referer, so a page's address never leaves with a request.
 */
const consolePolicy = "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'";

const types: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
  png: 'image/png',
  ico: 'image/x-icon',
  json: 'application/json; charset=utf-8',
  txt: 'text/plain; charset=utf-8',
};

// Vite's output names: letters, digits, dots, dashes, underscores, one folder deep. Anything else
// (.., encoded slashes) is not an asset and never reaches the file system.
const assetPattern = /^assets\/[A-Za-z0-9_-][A-Za-z0-9._-]{0,200}$/;
// A path that names a file (has an extension) is not an app path: it gets a 404, not the page.
const filePattern = /\.[A-Za-z0-9]{1,8}$/;

const notBuilt = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Console not built</title></head>
<body><h1>The console is not built</h1>
<p>This server serves the console from <code>console/dist</code>, which is missing. Build it with
<code>npm install</code> (or <code>npm run console:build</code>) in the project's folder, then reload.
Set <code>CONSOLE=false</code> to turn the console off.</p></body></html>
`;

function consoleHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .header('content-security-policy', consolePolicy)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('cross-origin-opener-policy', 'same-origin');
}

/**
 * Serves the built console at /console: hashed assets cached for ever, every app path answers the
 * page (the router reads the path), which is revalidated each time so a new build is picked up.
 * A small route of our own rather than @fastify/static: the fall-back to the page, the headers on
 * every answer and the missing-build page are most of it, and there are only a handful of files.
 */
export function registerConsole(app: FastifyInstance, dir: string = defaultConsoleDir): void {
  // Assets never change under their hashed name: read once.
  const assets = new Map<string, Buffer>();
  const config = { public: true };
  const schema = { hide: true };

  app.get('/console', { config, schema }, async (_request, reply) => consoleHeaders(reply).redirect('/console/', 308));

  app.get<{ Params: { '*': string } }>('/console/*', { config, schema }, async (request, reply) => {
    consoleHeaders(reply);
    const path = request.params['*'];
    if (assetPattern.test(path)) {
      let body = assets.get(path);
      if (!body) {
        try {
          body = await readFile(join(dir, path));
        } catch {
          return reply
            .code(404)
            .header('cache-control', 'no-store')
            .type('text/plain; charset=utf-8')
            .send('No such file in the console.\n');
        }
        assets.set(path, body);
      }
      const extension = path.slice(path.lastIndexOf('.') + 1);
      return reply
        .header('cache-control', 'public, max-age=31536000, immutable')
        .type(types[extension] ?? 'application/octet-stream')
        .send(body);
    }
    if (filePattern.test(path) && path !== 'index.html') {
      return reply.code(404).header('cache-control', 'no-store').type('text/plain; charset=utf-8').send('No such file in the console.\n');
    }
    let page: Buffer;
    try {
      page = await readFile(join(dir, 'index.html'));
    } catch {
      // Someone started the server without building the console: say how, not a 500.
      return reply
        .code(503)
        .header('cache-control', 'no-store')
        .header('retry-after', '60')
        .type('text/html; charset=utf-8')
        .send(notBuilt);
    }
    return reply.header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(page);
  });
}
