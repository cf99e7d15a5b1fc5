/** The `execute` tool's result, read back into its parts for a shell block. */
export interface ShellResult {
  /** `exit code: 0`, `timed out after 30000 ms: …`, `killed by SIGKILL`. */
  outcome: string;
  exitCode: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Parses what `formatExecuteResult` writes (outcome line, `stdout:` section, `stderr:` section, each
 * `(empty)` when nothing came); undefined for anything else (an error text, a refusal).
 */
export function parseShellResult(output: unknown): ShellResult | undefined {
  if (typeof output !== 'string') return undefined;
  const match = /^([^\n]*)\nstdout:\n([\s\S]*?)\nstderr:\n([\s\S]*)$/.exec(output);
  if (!match) return undefined;
  const [, outcome = '', stdout = '', stderr = ''] = match;
  const exit = /^exit code: (-?\d+)$/.exec(outcome);
  const clean = (text: string) => (text === '(empty)' ? '' : text);
  return { outcome, exitCode: exit ? Number(exit[1]) : null, stdout: clean(stdout), stderr: clean(stderr) };
}

/** The command an `execute` call runs, from its arguments. */
export function shellCommand(args: unknown): string {
  const command = (args as { command?: unknown } | null)?.command;
  return typeof command === 'string' ? command : '';
}
