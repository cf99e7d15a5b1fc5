/**
 * A model call's token estimate for admission (docs/budgets.md): about four characters per token over everything
 * sent, plus the output the call may produce. It only needs to be in the right range; actual usage settles
 * the ledger after the call.
 */
export function estimateTokens(sent: unknown, expectedOutput = 0): number {
  const text = typeof sent === 'string' ? sent : (JSON.stringify(sent) ?? '');
  return Math.ceil(text.length / 4) + expectedOutput;
}
