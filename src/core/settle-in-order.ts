/**
 * Like `Promise.all`, for writes a transaction starts together (docs/scale-out.md, "What scales how"): waits
 * for every one of them, then fails with the first failure in the order they were started. On PostgreSQL the
 * first failing statement aborts the transaction and every statement behind it fails only because of that,
 * its answer possibly settled first; the error that explains the failure is the earliest one.
 */
export async function settleInOrder<T extends readonly unknown[] | []>(
  values: T,
): Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }> {
  const settled = await Promise.allSettled(values);
  const answers: unknown[] = [];
  for (const outcome of settled) {
    if (outcome.status === 'rejected') throw outcome.reason;
    answers.push(outcome.value);
  }
  return answers as { -readonly [K in keyof T]: Awaited<T[K]> };
}
