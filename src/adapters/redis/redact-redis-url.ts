/** A Redis URL without its password, for error messages (the bus and the queue both connect with one). */
export function redactRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparseable Redis URL)';
  }
}
