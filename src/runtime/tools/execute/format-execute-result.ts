import type { SandboxResult } from './sandbox.js';

function section(name: string, text: string, omitted: number): string {
  const body = text === '' && omitted === 0 ? '(empty)' : text;
  const note =
    omitted > 0
      ? `${body.endsWith('\n') || body === '' ? '' : '\n'}[output truncated: ${omitted} bytes omitted]`
      : '';
  return `${name}:\n${body}${note}`;
}

/** The tool result as the model reads it: the outcome first, then both streams in labelled sections. */
export function formatExecuteResult(result: SandboxResult, timeoutMs: number): string {
  const outcome = result.timedOut
    ? `timed out after ${timeoutMs} ms: the command and all its processes were killed`
    : result.exitCode !== null
      ? `exit code: ${result.exitCode}`
      : `killed by ${result.signal ?? 'a signal'}`;
  return [
    outcome,
    section('stdout', result.stdout, result.omitted.stdout),
    section('stderr', result.stderr, result.omitted.stderr),
  ].join('\n');
}
