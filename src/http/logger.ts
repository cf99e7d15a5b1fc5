/** The little the HTTP layer needs to report failures; the CLI decides where lines go. */
export interface Logger {
  error(message: string, context?: Record<string, unknown>): void;
  warn(message: string, context?: Record<string, unknown>): void;
}

function write(level: string, message: string, context?: Record<string, unknown>): void {
  process.stderr.write(`${JSON.stringify({ level, time: new Date().toISOString(), message, ...context })}\n`);
}

/** One JSON line per entry on stderr, so stdout stays free for whatever the process prints. */
export const stderrLogger: Logger = {
  error: (message, context) => write('error', message, context),
  warn: (message, context) => write('warn', message, context),
};

/** For tests that provoke failures on purpose. */
export const silentLogger: Logger = {
  error: () => undefined,
  warn: () => undefined,
};

/**
 * `message` with each error's text, but a text logged in the last `windowMs` is only counted, and the count goes
 * out with its next line: a server that is away fails every reconnect attempt of every connection, and an
 * outage of Redis would otherwise write hundreds of identical lines a minute.
 */
export function repeatLimitedError(
  logger: Logger,
  message: string,
  windowMs = 10_000,
): (context: Record<string, unknown> & { error: string }) => void {
  const lastLogged = new Map<string, { at: number; skipped: number }>();
  return (context) => {
    const now = Date.now();
    const last = lastLogged.get(context.error);
    if (last && now - last.at < windowMs) {
      last.skipped += 1;
      return;
    }
    // Bounded: texts that carry ids or addresses would otherwise pile up for the life of the process.
    if (lastLogged.size >= 100) lastLogged.clear();
    lastLogged.set(context.error, { at: now, skipped: 0 });
    logger.error(message, last?.skipped ? { ...context, repeated: last.skipped } : context);
  };
}
