import { useSyncExternalStore } from 'react';

const EVENT = 'troupe:navigate';

function subscribe(callback: () => void): () => void {
  window.addEventListener('popstate', callback);
  window.addEventListener(EVENT, callback);
  return () => {
    window.removeEventListener('popstate', callback);
    window.removeEventListener(EVENT, callback);
  };
}

const snapshot = (): string => window.location.pathname + window.location.search;

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (to === snapshot()) return;
  if (options.replace) window.history.replaceState(null, '', to);
  else window.history.pushState(null, '', to);
  window.dispatchEvent(new Event(EVENT));
}

/** The current path and query, re-rendering on `navigate` and on back/forward. */
export function useLocation(): { pathname: string; search: string } {
  const current = useSyncExternalStore(subscribe, snapshot);
  const index = current.indexOf('?');
  return index === -1
    ? { pathname: current, search: '' }
    : { pathname: current.slice(0, index), search: current.slice(index) };
}
