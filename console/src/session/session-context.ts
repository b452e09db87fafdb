import type { AdminClient, paths } from '@community-admin/client';
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Session } from './session.js';

export interface SessionValue {
  session: Session;
  client: AdminClient<paths>;
  signOut: () => Promise<void>;
}

export const SessionContext = createContext<SessionValue | null>(null);

/** The signed-in session and its client; every page is rendered inside a signed-in shell. */
export function useSession(): SessionValue {
  const value = useContext(SessionContext);
  if (!value) throw new Error('useSession outside the signed-in shell');
  return value;
}

/** The typed API client of the signed-in session. */
export const useClient = (): AdminClient<paths> => useSession().client;
