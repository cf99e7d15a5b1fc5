import { createContext, useContext } from 'react';
import type { TroupeApi } from '../api/troupe-api.ts';
import type { User } from '../api/types.ts';

export interface Session {
  api: TroupeApi;
  /** Null until `/api/me` answers: pages render meanwhile so their own requests run beside it. */
  user: User | null;
  logout: () => void;
}

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (session === null) throw new Error('useSession outside a signed-in session');
  return session;
}
