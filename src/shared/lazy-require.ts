import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * A CommonJS dependency loaded on first use instead of at start-up. The Slack SDK, the Redis client
 * and the PostgreSQL driver together add about a quarter of a second to every start, and most
 * deployments use one database, may run without Redis, and invite to chat rarely.
 */
export function lazyRequire<T>(id: string): () => T {
  let loaded: T | undefined;
  return () => {
    loaded ??= require(id) as T;
    return loaded;
  };
}
