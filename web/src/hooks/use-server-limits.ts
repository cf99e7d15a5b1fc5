import { useEffect, useState } from 'react';
import type { TroupeApi } from '../api/troupe-api.ts';
import type { ServerLimits } from '../api/types.ts';
import { useSession } from './use-session.ts';

// One request per signed-in session: the limits are the server's configuration, not per conversation.
const cache = new WeakMap<TroupeApi, Promise<ServerLimits | null>>();

/** The server's upload limits; null until known, or when the server does not say (it still enforces them). */
export function useServerLimits(): ServerLimits | null {
  const { api } = useSession();
  const [limits, setLimits] = useState<ServerLimits | null>(null);
  useEffect(() => {
    let live = true;
    let pending = cache.get(api);
    if (!pending) {
      pending = api.limits().catch(() => null);
      cache.set(api, pending);
    }
    void pending.then((value) => {
      if (live) setLimits(value);
    });
    return () => {
      live = false;
    };
  }, [api]);
  return limits;
}
