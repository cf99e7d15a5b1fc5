import { useEffect, useRef } from 'react';
import { addLeaveGuard } from './use-location.ts';

/**
 * While `reason` is not null, leaving the page asks first: in-app navigation with that reason, a reload or
 * a closed tab with the browser's own prompt (`beforeunload`).
 */
export function useLeaveGuard(reason: string | null): void {
  const current = useRef(reason);
  current.current = reason;
  useEffect(() => addLeaveGuard(() => current.current), []);
  useEffect(() => {
    if (reason === null) return undefined;
    const onBeforeUnload = (event: BeforeUnloadEvent) => {
      event.preventDefault();
      // Older Chromium versions show the prompt only when returnValue is set.
      event.returnValue = '';
    };
    window.addEventListener('beforeunload', onBeforeUnload);
    return () => window.removeEventListener('beforeunload', onBeforeUnload);
  }, [reason]);
}
