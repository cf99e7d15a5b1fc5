import { describe, expect, it } from 'vitest';
import { compileGlob, hasGlobSyntax } from './compile-glob.js';

function matches(pattern: string, candidate: string): boolean {
  return compileGlob(pattern).test(candidate);
}

describe('compileGlob', () => {
  it.each([
    ['*.ts', 'a.ts', true],
    ['*.ts', 'dir/a.ts', false],
    ['*.ts', '.hidden.ts', true],
    ['?.ts', 'a.ts', true],
    ['?.ts', 'ab.ts', false],
    ['?', '/', false],
    ['**/*.ts', 'a.ts', true],
    ['**/*.ts', 'x/y/z/a.ts', true],
    ['**/*.ts', 'x/y/a.tsx', false],
    ['src/**/*.ts', 'src/a.ts', true],
    ['src/**/*.ts', 'src/x/y/a.ts', true],
    ['src/**/*.ts', 'lib/a.ts', false],
    ['src/**', 'src/x/y', true],
    ['**', 'any/thing/at/all', true],
    ['a**b', 'axxb', true],
    ['a**b', 'ax/xb', false],
    ['*.{ts,tsx}', 'a.tsx', true],
    ['*.{ts,tsx}', 'a.js', false],
    ['{src,test}/**/*.ts', 'test/deep/a.ts', true],
    ['{src,test}/**/*.ts', 'lib/a.ts', false],
    ['{a,{b,c}d}.txt', 'cd.txt', true],
    ['{a,{b,c}d}.txt', 'c.txt', false],
    ['{**/x,y}', 'p/q/x', true],
    ['file{1', 'file{1', true],
    ['a.b', 'axb', false],
    ['(x)+[y]$', '(x)+[y]$', true],
    ['\\*.txt', '*.txt', true],
    ['\\*.txt', 'a.txt', false],
  ])('%s against %s is %s', (pattern, candidate, expected) => {
    expect(matches(pattern, candidate)).toBe(expected);
  });

  it('detects glob syntax', () => {
    expect(hasGlobSyntax('src')).toBe(false);
    expect(hasGlobSyntax('*.ts')).toBe(true);
    expect(hasGlobSyntax('{a,b}')).toBe(true);
  });
});
