export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Polls `probe` every `intervalMs` until it returns a value (not undefined); fails with `what` after
 * `timeoutMs`. A probe that throws (a server not listening yet) counts as "not yet"; the last error explains a
 * timeout.
 */
export async function eventually<T>(
  what: string,
  timeoutMs: number,
  probe: () => Promise<T | undefined>,
  intervalMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      const cause = lastError instanceof Error ? `: ${lastError.message}` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${cause}`);
    }
    await delay(intervalMs);
  }
}
