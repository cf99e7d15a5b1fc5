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
