import { describe, expect, it } from 'vitest';
import { settleInOrder } from './settle-in-order.js';

describe('settleInOrder', () => {
  it('answers every value in order once all are settled', async () => {
    const late = new Promise<string>((resolve) => setTimeout(() => resolve('late'), 5));
    await expect(settleInOrder([late, Promise.resolve(2), 3] as const)).resolves.toEqual(['late', 2, 3]);
  });

  it('fails with the earliest failure in order, not the first to settle', async () => {
    const root = new Error('the statement that failed');
    const consequence = new Error('current transaction is aborted');
    // The consequence settles first, as the answer of a later statement can when both arrive in one read.
    const first = new Promise<never>((_, reject) => setTimeout(() => reject(root), 5));
    const second = Promise.reject(consequence);
    await expect(settleInOrder([first, second])).rejects.toBe(root);
  });

  it('waits for the writes still in flight before failing', async () => {
    let settled = false;
    const slow = new Promise<void>((resolve) =>
      setTimeout(() => {
        settled = true;
        resolve();
      }, 5),
    );
    await expect(settleInOrder([Promise.reject(new Error('early')), slow])).rejects.toThrow('early');
    expect(settled).toBe(true);
  });
});
