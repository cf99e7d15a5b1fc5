import { describe, expect, it } from 'vitest';
import { formatExecuteResult } from './format-execute-result.js';

const base = {
  exitCode: 0,
  signal: null,
  stdout: '',
  stderr: '',
  omitted: { stdout: 0, stderr: 0 },
  timedOut: false,
};

describe('formatExecuteResult', () => {
  it('leads with the exit code and labels both streams', () => {
    expect(formatExecuteResult({ ...base, exitCode: 2, stdout: 'out\n' }, 1000)).toBe(
      'exit code: 2\nstdout:\nout\n\nstderr:\n(empty)',
    );
  });

  it('notes truncation at the end of each cut stream', () => {
    const text = formatExecuteResult({ ...base, stdout: 'aaaa', omitted: { stdout: 123, stderr: 5 } }, 1000);
    expect(text).toBe(
      'exit code: 0\nstdout:\naaaa\n[output truncated: 123 bytes omitted]\nstderr:\n[output truncated: 5 bytes omitted]',
    );
  });

  it('says when the wall-time limit killed the command', () => {
    expect(
      formatExecuteResult({ ...base, exitCode: null, signal: 'SIGKILL', timedOut: true }, 500).split('\n')[0],
    ).toBe('timed out after 500 ms: the command and all its processes were killed');
  });
});
