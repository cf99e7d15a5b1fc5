import { describe, expect, it } from 'vitest';
import { formatExecuteResult } from '../../../src/runtime/tools/execute/format-execute-result.ts';
import { parseShellResult, shellCommand } from './shell-result.ts';

const base = {
  exitCode: 0,
  signal: null,
  timedOut: false,
  stdout: '',
  stderr: '',
  omitted: { stdout: 0, stderr: 0 },
};

describe('parseShellResult', () => {
  it('reads back what the execute tool writes: outcome, stdout and stderr', () => {
    const text = formatExecuteResult(
      { ...base, exitCode: 2, stdout: 'built\nok\n', stderr: 'warning: x\n' },
      30_000,
    );
    expect(parseShellResult(text)).toEqual({
      outcome: 'exit code: 2',
      exitCode: 2,
      stdout: 'built\nok\n',
      stderr: 'warning: x\n',
    });
  });

  it('treats empty streams as empty, and a timeout as no exit code', () => {
    const text = formatExecuteResult({ ...base, exitCode: null, timedOut: true }, 5_000);
    expect(parseShellResult(text)).toEqual({
      outcome: 'timed out after 5000 ms: the command and all its processes were killed',
      exitCode: null,
      stdout: '',
      stderr: '',
    });
  });

  it('leaves anything else alone', () => {
    expect(parseShellResult('The user rejected this execute call.')).toBeUndefined();
    expect(parseShellResult({ stdout: 'x' })).toBeUndefined();
    expect(shellCommand({ command: 'ls -la' })).toBe('ls -la');
    expect(shellCommand(null)).toBe('');
  });
});
