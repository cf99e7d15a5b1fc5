import { expect } from 'vitest';
import { expectError, json } from '../expect-error.js';
import type { ForeignIdsWorld } from './use-foreign-ids-world.js';

/** One request Bob makes with Alice's ids, and the refusal it must meet. */
export interface ForeignIdAttempt {
  name: string;
  method: string;
  url: (world: ForeignIdsWorld) => string;
  body?: (world: ForeignIdsWorld) => Record<string, unknown> | string;
  headers?: Record<string, string>;
  code: string;
  status?: number;
  /** For HTTP 200 answers (delegation refusals are results, docs/delegation.md): the body to match. */
  answer?: Record<string, unknown>;
}

/** Bob makes the attempt: refused as expected, and nothing in storage changed. */
export async function expectAttemptRefused(world: ForeignIdsWorld, attempt: ForeignIdAttempt): Promise<void> {
  const { ctx, bob } = world;
  const before = ctx.dump();
  const response = await ctx.request(attempt.method, attempt.url(world), {
    token: bob.token,
    body: attempt.body?.(world),
    ...(attempt.headers ? { headers: attempt.headers } : {}),
  });
  if (attempt.answer) expect(await json(response, attempt.status ?? 200)).toMatchObject(attempt.answer);
  else await expectError(response, attempt.status ?? 404, attempt.code);
  expect(ctx.dump()).toEqual(before);
}
