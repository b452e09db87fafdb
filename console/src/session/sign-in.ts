import { createClient, unwrap } from '@community-admin/client';
import { apiBase, type Session } from './session.js';

/** The one-time token of a console link (`#token=...`), or null. */
export function tokenFromFragment(hash: string): string | null {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const token = params.get('token');
  return token && token.length > 0 ? token : null;
}

/** Removes the token from the address bar (and so from history), keeping the path. */
export function forgetFragment(): void {
  history.replaceState(history.state, '', window.location.pathname + window.location.search);
}

/** Exchanges a link's token for a session (`POST /admin/v0/console/sessions`, no key). */
export async function exchangeToken(token: string): Promise<Session> {
  const client = createClient({ baseUrl: apiBase(), apiKey: '', retry: { maxAttempts: 1 } });
  return unwrap(await client.POST('/admin/v0/console/sessions', { body: { token } })).data;
}
