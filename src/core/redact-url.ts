/**
 * A connection URL fit for error messages and logs: the password becomes `***`. A URL that does not
 * parse is not echoed at all, since a malformed one may still carry a secret; `what` names it instead.
 */
export function redactUrl(url: string, what = 'URL'): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return `(unparseable ${what})`;
  }
}
