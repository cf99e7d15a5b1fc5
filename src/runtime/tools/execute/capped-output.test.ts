import { describe, expect, it } from 'vitest';
import { createCappedOutput } from './capped-output.js';

describe('createCappedOutput', () => {
  it('keeps the first bytes of both streams within one budget and counts the rest', () => {
    const output = createCappedOutput(10);
    output.stdout.push(Buffer.from('12345'));
    output.stderr.push(Buffer.from('abcd'));
    output.stdout.push(Buffer.from('6789'));
    output.stderr.push(Buffer.from('efgh'));
    expect(output.stdout.text()).toBe('123456');
    expect(output.stderr.text()).toBe('abcd');
    expect(output.stdout.omitted).toBe(3);
    expect(output.stderr.omitted).toBe(4);
  });

  it('keeps everything under the cap', () => {
    const output = createCappedOutput(100);
    output.stdout.push(Buffer.from('héllo'));
    expect(output.stdout.text()).toBe('héllo');
    expect(output.stdout.omitted).toBe(0);
  });
});
