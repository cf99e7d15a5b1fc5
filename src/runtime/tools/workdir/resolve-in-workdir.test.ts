import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  componentsBelow,
  relativeInside,
  resolveInWorkdir,
  splitComponents,
  workdirRelativePath,
} from './resolve-in-workdir.js';

const CONFIGURED = '/srv/link-to-work';
const REAL = '/data/work';

describe('resolveInWorkdir (on the string)', () => {
  it('maps relative and inside-absolute paths to workdir-relative ones, collapsing ..', () => {
    expect(resolveInWorkdir(CONFIGURED, REAL, 'src/a.ts')).toBe('src/a.ts');
    expect(resolveInWorkdir(CONFIGURED, REAL, './src/../src/a.ts')).toBe('src/a.ts');
    expect(resolveInWorkdir(CONFIGURED, REAL, '/data/work/src/a.ts')).toBe('src/a.ts');
    expect(resolveInWorkdir(CONFIGURED, REAL, '/srv/link-to-work/src/a.ts')).toBe('src/a.ts');
    expect(resolveInWorkdir(CONFIGURED, REAL, '.')).toBe('');
    expect(resolveInWorkdir(CONFIGURED, REAL, '')).toBe('');
    expect(resolveInWorkdir(CONFIGURED, REAL, 'a/b/../../c')).toBe('c');
  });

  it.each(['../x', '..', 'a/../../x', '/etc/passwd', '/data/work-sibling/x', '/data/work/../x'])(
    'refuses %s',
    (requested) => {
      expect(resolveInWorkdir(CONFIGURED, REAL, requested)).toBeUndefined();
    },
  );
});

describe('componentsBelow (absolute symlink targets)', () => {
  it('keeps what follows the workdir, real or configured', () => {
    expect(componentsBelow(CONFIGURED, REAL, '/data/work/a/b')).toEqual(['a', 'b']);
    expect(componentsBelow(CONFIGURED, REAL, '/srv/link-to-work/a')).toEqual(['a']);
    expect(componentsBelow(CONFIGURED, REAL, '/data/work')).toEqual([]);
    // `..` after the prefix is left to the descriptor walk, which refuses climbing above the root.
    expect(componentsBelow(CONFIGURED, REAL, '/data/work/a/../..')).toEqual(['a', '..', '..']);
  });

  it('refuses targets elsewhere, including look-alike prefixes and .. inside the prefix', () => {
    expect(componentsBelow(CONFIGURED, REAL, '/data/workshop/a')).toBeUndefined();
    expect(componentsBelow(CONFIGURED, REAL, '/data/other/../work/a')).toBeUndefined();
    expect(componentsBelow(CONFIGURED, REAL, '/etc/passwd')).toBeUndefined();
    expect(componentsBelow(CONFIGURED, REAL, '/data')).toBeUndefined();
  });
});

describe('path helpers', () => {
  it('relativeInside judges containment on the strings', () => {
    expect(relativeInside('/a/b', '/a/b')).toBe('');
    expect(relativeInside('/a/b', '/a/b/c')).toBe('c');
    expect(relativeInside('/a/b', '/a/bc')).toBeUndefined();
    expect(relativeInside('/a/b', '/a')).toBeUndefined();
  });

  it('splitComponents drops empty and . components but keeps ..', () => {
    expect(splitComponents('./a//b/./../c/')).toEqual(['a', 'b', '..', 'c']);
    expect(splitComponents('/')).toEqual([]);
  });

  it('workdirRelativePath shows / separators and . for the root', () => {
    expect(workdirRelativePath(REAL, REAL)).toBe('.');
    expect(workdirRelativePath(REAL, path.join(REAL, 'a', 'b'))).toBe('a/b');
  });
});
