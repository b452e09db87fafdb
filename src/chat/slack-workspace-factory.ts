import { createHash } from 'node:crypto';
import type { DurationMs } from '../shared/time.js';
import type { ChatWorkspace, ChatWorkspaceFactory } from './chat-workspace.js';
import { createSlackWorkspace } from './slack-workspace.js';

// Enough for every community a single instance serves; the oldest entry goes first past it.
const MAX_CACHED_WORKSPACES = 256;

/**
 * A factory that keeps one workspace per connection, so the memoised team id and the HTTP
 * keep-alive pool outlive a single request. Keys are hashes: tokens are not copied into keys.
 */
export function createSlackWorkspaceFactory(opts: { apiUrl: string; timeoutMs: DurationMs }): ChatWorkspaceFactory {
  const cache = new Map<string, ChatWorkspace>();
  return ({ token, teamId }) => {
    const key = createHash('sha256')
      .update(`${teamId ?? ''}\n${token}`)
      .digest('hex');
    const cached = cache.get(key);
    if (cached !== undefined) {
      // Re-insert so the map's insertion order doubles as least-recently-used order.
      cache.delete(key);
      cache.set(key, cached);
      return cached;
    }
    const workspace = createSlackWorkspace({ token, apiUrl: opts.apiUrl, timeoutMs: opts.timeoutMs, teamId: teamId ?? undefined });
    cache.set(key, workspace);
    if (cache.size > MAX_CACHED_WORKSPACES) {
      const oldest = cache.keys().next();
      if (oldest.done !== true) cache.delete(oldest.value);
    }
    return workspace;
  };
}
