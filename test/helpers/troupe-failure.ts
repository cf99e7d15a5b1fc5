import { expect } from 'vitest';
import { TroupeError } from '../../src/core/errors.js';

/** The TroupeError `promise` rejects with; fails the test when it resolves or rejects with anything else. */
export async function troupeFailure(promise: Promise<unknown>): Promise<TroupeError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(TroupeError);
  return error as TroupeError;
}
