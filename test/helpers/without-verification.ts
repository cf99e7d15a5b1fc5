/**
 * A child result without the evidence and verdict lines every child result ends with
 * (docs/verified-delegation.md#what-the-parent-model-sees): for tests about the rest of the text.
 */
export function withoutVerification(text: string | null | undefined): string | null | undefined {
  return text?.replace(/\n\n\[evidence\] [^\n]*\n\[verification\] [^\n]*/g, '');
}
