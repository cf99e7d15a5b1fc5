import { expect } from 'vitest';
import { isTroupeError, type ErrorCode, type TroupeError } from '../../../src/core/errors.js';

/** Awaits a rejection and asserts its TroupeError code; returns the error for message checks. */
export async function expectTroupeError(promise: Promise<unknown>, code: ErrorCode): Promise<TroupeError> {
  const outcome = await promise.then(
    (value: unknown) => ({ resolved: value }),
    (thrown: unknown) => ({ thrown }),
  );
  if (!('thrown' in outcome))
    throw new Error(`expected ${code}, but it resolved to ${JSON.stringify(outcome.resolved)}`);
  expect(isTroupeError(outcome.thrown, code), `expected ${code}, got ${String(outcome.thrown)}`).toBe(true);
  return outcome.thrown as TroupeError;
}
