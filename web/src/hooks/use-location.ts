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

/** Says why leaving the current page needs a confirmation (unsaved changes), or null when it does not. */
export type LeaveGuard = () => string | null;

const guards = new Set<LeaveGuard>();
let shown = typeof window === 'undefined' ? '' : snapshot();

/** Asks the user when a guard objects; true when the page may be left. */
function mayLeave(): boolean {
  for (const guard of guards) {
    const reason = guard();
    if (reason !== null) return window.confirm(reason);
  }
  return true;
}

// Back and forward cannot be cancelled: a refused one is undone by putting the page's address back, before
// the location store (registered later, without capture) ever sees it.
function onPopState(event: PopStateEvent): void {
  if (snapshot() === shown) return;
  if (mayLeave()) {
    shown = snapshot();
    return;
  }
  event.stopImmediatePropagation();
  window.history.pushState(null, '', shown);
}

/** Registers a guard asked before any in-app navigation (links, `navigate`, back and forward). */
export function addLeaveGuard(guard: LeaveGuard): () => void {
  if (guards.size === 0) window.addEventListener('popstate', onPopState, { capture: true });
  guards.add(guard);
  return () => {
    guards.delete(guard);
    if (guards.size === 0) window.removeEventListener('popstate', onPopState, { capture: true });
  };
}

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (to === snapshot()) return;
  if (!mayLeave()) return;
  shown = to;
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
