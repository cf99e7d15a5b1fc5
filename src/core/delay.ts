/**
 * Waits `ms`, rejecting with the signal's reason the moment it aborts, so a cancelled run does not sit out
 * the rest of a slow scripted step.
 */
export function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the abort reason is the aborter's choice (an AbortError DOMException by default) and must pass through unchanged
    const rejectWithReason = () => reject(signal?.reason);
    if (signal?.aborted) {
      rejectWithReason();
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      rejectWithReason();
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
