import fastJson from 'fast-json-stringify';
import type { FastifyInstance } from 'fastify';
import { compiledOnFirstCall } from '../shared/compiled-on-first-call.js';

/**
 * Response serialisers as Fastify builds them by default (fast-json-stringify with the shared
 * schemas), but each compiled on its route's first answer rather than at start-up, where
 * compiling all of them took about a tenth of a second.
 */
export function registerSerialization(app: FastifyInstance): void {
  app.setSerializerCompiler(({ schema }) =>
    compiledOnFirstCall(() => {
      const shared: Record<string, unknown> = { ...app.getSchemas() };
      const id = (schema as { $id?: unknown }).$id;
      if (typeof id === 'string') delete shared[id];
      return fastJson(schema as object, { schema: shared as Record<string, fastJson.Schema> });
    }),
  );
}
