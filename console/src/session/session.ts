import { type AdminClient, createClient, type paths, unwrap } from '@community-admin/client';

/** What the console keeps of a sign-in, in sessionStorage (gone when the tab closes; never a cookie). */
export interface Session {
  key: string;
  key_id: string;
  expires_at: string;
  community: { id: string; name: string; plan: string };
}

const storageKey = 'community-admin.console.session';

export function loadSession(): Session | null {
  const raw = sessionStorage.getItem(storageKey);
  if (!raw) return null;
  try {
    const session = JSON.parse(raw) as Session;
    if (typeof session.key !== 'string' || Date.parse(session.expires_at) <= Date.now()) return null;
    return session;
  } catch {
    return null;
  }
}

export function saveSession(session: Session): void {
  sessionStorage.setItem(storageKey, JSON.stringify(session));
}

export function clearSession(): void {
  sessionStorage.removeItem(storageKey);
}

/** The API's base: the console is served by the server it manages. */
export const apiBase = (): string => window.location.origin;

/** The typed client, with the session's key. The console calls the API through nothing else. */
export function clientFor(session: Session, onUnauthorized: () => void): AdminClient<paths> {
  const client = createClient({ baseUrl: apiBase(), apiKey: session.key, retry: { maxAttempts: 2 } });
  // A 401 means the session's key expired or was revoked (sign-out elsewhere, the key list): back to sign-in.
  client.use({
    onResponse({ response }) {
      if (response.status === 401) onUnauthorized();
      return undefined;
    },
  });
  return client;
}

/** Revokes the session's own key (sign-out): `DELETE /admin/v0/api_keys/{id}`. */
export async function revokeSessionKey(client: AdminClient<paths>, session: Session): Promise<void> {
  unwrap(await client.DELETE('/admin/v0/api_keys/{id}', { params: { path: { id: session.key_id } } }));
}
