import { vi } from 'vitest';
import type { Storage } from '../../../src/core/ports/storage.js';

/** The repositories of a storage (its members that are not its transaction functions). */
type Repository = {
  [K in keyof Storage]: Storage[K] extends (...args: never) => unknown ? never : K;
}[keyof Storage];

/**
 * The first argument of every call each named repository method got while `work` ran, in any transaction: a
 * transaction's repositories are instances of the same classes, so the spies sit on their prototypes.
 */
export async function readsDuring<K extends string>(
  storage: Storage,
  methods: Record<K, readonly [Repository, string]>,
  work: () => Promise<unknown>,
): Promise<Record<K, unknown[]>> {
  const named = Object.entries(methods) as [K, readonly [Repository, string]][];
  const spies = named.map(([key, [repository, method]]) => {
    const prototype = Object.getPrototypeOf(storage[repository]) as Record<string, () => unknown>;
    return [key, vi.spyOn(prototype, method)] as const;
  });
  try {
    await work();
    return Object.fromEntries(
      spies.map(([key, spy]) => [key, spy.mock.calls.map((args: unknown[]) => args[0])]),
    ) as Record<K, unknown[]>;
  } finally {
    for (const [, spy] of spies) spy.mockRestore();
  }
}
