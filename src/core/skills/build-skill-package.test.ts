import { describe, expect, it } from 'vitest';
import { TroupeError } from '../errors.js';
import { buildSkillPackage, type RawSkillEntry } from './build-skill-package.js';
import { parseSkillMd } from './parse-skill-md.js';
import { DEFAULT_SKILL_LIMITS, type SkillLimits } from './skill-limits.js';

const text = (value: string) => new TextEncoder().encode(value);
const MD = '---\nname: citations\ndescription: How to cite.\n---\n# Cite\n';
const entry = (path: string, content = 'x'): RawSkillEntry => ({ path, content: text(content) });

function codeOf(work: () => unknown): string {
  try {
    work();
  } catch (error) {
    if (error instanceof TroupeError) return `${error.code}: ${error.message}`;
    throw error;
  }
  return 'no error';
}

describe('buildSkillPackage', () => {
  it('reads name and description from SKILL.md and sorts the files', () => {
    const pkg = buildSkillPackage(
      [entry('b/z.txt'), entry('SKILL.md', MD), entry('a.txt')],
      DEFAULT_SKILL_LIMITS,
    );
    expect(pkg).toMatchObject({ name: 'citations', description: 'How to cite.', total_bytes: MD.length + 2 });
    expect(pkg.files.map((file) => file.path)).toEqual(['SKILL.md', 'a.txt', 'b/z.txt']);
    expect(pkg.digest).toMatch(/^[0-9a-f]{64}$/);
  });

  it('strips the one top folder an archive usually holds, and leading ./ of tar entries', () => {
    const pkg = buildSkillPackage(
      [entry('./citations/SKILL.md', MD), entry('./citations/ref/x.md')],
      DEFAULT_SKILL_LIMITS,
    );
    expect(pkg.files.map((file) => file.path)).toEqual(['SKILL.md', 'ref/x.md']);
  });

  it('gives the same digest whatever the entry order, and another one for other bytes', () => {
    const one = buildSkillPackage([entry('SKILL.md', MD), entry('a.txt', '1')], DEFAULT_SKILL_LIMITS);
    const two = buildSkillPackage([entry('a.txt', '1'), entry('SKILL.md', MD)], DEFAULT_SKILL_LIMITS);
    const three = buildSkillPackage([entry('a.txt', '2'), entry('SKILL.md', MD)], DEFAULT_SKILL_LIMITS);
    expect(two.digest).toBe(one.digest);
    expect(three.digest).not.toBe(one.digest);
  });

  it('ignores archiver junk (__MACOSX, .DS_Store)', () => {
    const pkg = buildSkillPackage(
      [entry('SKILL.md', MD), entry('__MACOSX/._SKILL.md'), entry('docs/.DS_Store')],
      DEFAULT_SKILL_LIMITS,
    );
    expect(pkg.files.map((file) => file.path)).toEqual(['SKILL.md']);
  });

  it.each([
    ['../escape.txt', 'climbs out'],
    ['docs/../../escape.txt', 'climbs out'],
    ['/etc/passwd', 'absolute'],
    ['C:/Windows/evil.dll', 'drive letter'],
    ['c:evil', 'drive letter'],
    ['docs\\..\\evil', 'backslash'],
    ['docs//double', 'empty'],
    ['docs/./x', 'empty or "."'],
    ['bad\u0000name', 'control character'],
    ['bad\nname', 'control character'],
  ])('refuses the whole skill for the entry %j (%s)', (path, reason) => {
    const result = codeOf(() =>
      buildSkillPackage([entry('SKILL.md', MD), entry(path)], DEFAULT_SKILL_LIMITS),
    );
    expect(result).toMatch(/^skill_invalid: /);
    expect(result).toContain(reason);
  });

  it('refuses duplicates and a path that is both a file and a folder', () => {
    expect(
      codeOf(() => buildSkillPackage([entry('SKILL.md', MD), entry('a'), entry('a')], DEFAULT_SKILL_LIMITS)),
    ).toContain('appears twice');
    expect(
      codeOf(() =>
        buildSkillPackage([entry('SKILL.md', MD), entry('a'), entry('a/b')], DEFAULT_SKILL_LIMITS),
      ),
    ).toContain('both a file and a folder');
  });

  it('needs SKILL.md at the root or at the root of the single top folder', () => {
    expect(codeOf(() => buildSkillPackage([entry('README.md')], DEFAULT_SKILL_LIMITS))).toMatch(
      /^skill_invalid: SKILL.md is missing/,
    );
    expect(
      codeOf(() => buildSkillPackage([entry('a/SKILL.md', MD), entry('b/x')], DEFAULT_SKILL_LIMITS)),
    ).toMatch(/SKILL.md is missing/);
    expect(codeOf(() => buildSkillPackage([entry('deep/er/SKILL.md', MD)], DEFAULT_SKILL_LIMITS))).toMatch(
      /SKILL.md is missing/,
    );
  });

  it('enforces the file-count, byte, SKILL.md size and depth limits', () => {
    const small: SkillLimits = {
      ...DEFAULT_SKILL_LIMITS,
      maxFiles: 2,
      maxTotalBytes: 100,
      maxSkillMdBytes: 60,
      maxDepth: 3,
    };
    expect(codeOf(() => buildSkillPackage([entry('SKILL.md', MD), entry('a'), entry('b')], small))).toMatch(
      /^skill_too_large: .*at most 2 files/,
    );
    expect(
      codeOf(() => buildSkillPackage([entry('SKILL.md', MD), entry('a', 'x'.repeat(80))], small)),
    ).toMatch(/^skill_too_large: .*at most 100 bytes/);
    expect(codeOf(() => buildSkillPackage([entry('SKILL.md', `${MD}${'y'.repeat(30)}`)], small))).toMatch(
      /^skill_too_large: SKILL.md/,
    );
    expect(codeOf(() => buildSkillPackage([entry('SKILL.md', MD), entry('a/b/c/d')], small))).toContain(
      'nested deeper than 3',
    );
  });

  it('measures names in bytes: 255 per name, 1024 per path', () => {
    const fits = `${'é'.repeat(126)}.m`;
    expect(new TextEncoder().encode(fits).byteLength).toBe(254);
    expect(buildSkillPackage([entry('SKILL.md', MD), entry(fits)], DEFAULT_SKILL_LIMITS).files).toHaveLength(
      2,
    );
    expect(
      codeOf(() => buildSkillPackage([entry('SKILL.md', MD), entry(`${fits}dd`)], DEFAULT_SKILL_LIMITS)),
    ).toBe(`skill_invalid: Entry ${JSON.stringify(`${fits}dd`)} has a name longer than 255 bytes`);
    const long = ['a', 'b', 'c', 'd', 'e'].map((letter) => letter.repeat(205)).join('/');
    expect(
      codeOf(() => buildSkillPackage([entry('SKILL.md', MD), entry(long)], DEFAULT_SKILL_LIMITS)),
    ).toContain('is longer than 1024 bytes');
  });

  it('refuses SKILL.md that is not UTF-8', () => {
    const bad: RawSkillEntry = { path: 'SKILL.md', content: new Uint8Array([0x2d, 0x2d, 0x2d, 0xff, 0xfe]) };
    expect(codeOf(() => buildSkillPackage([bad], DEFAULT_SKILL_LIMITS))).toContain('not valid UTF-8');
  });
});

describe('parseSkillMd', () => {
  it('accepts CRLF, a BOM, extra keys and a multi-line description (folded to one line)', () => {
    const manifest = parseSkillMd(
      '\uFEFF---\r\nname: pdf-tools\r\nlicense: MIT\r\ndescription: |\r\n  Fill PDF forms.\r\n  Merge files.\r\n---\r\nBody\r\n',
    );
    expect(manifest).toEqual({
      name: 'pdf-tools',
      description: 'Fill PDF forms. Merge files.',
      body: 'Body\n',
    });
  });

  it.each([
    ['no front matter', '# Title\n', 'must start with YAML front matter'],
    ['unterminated', '---\nname: a\n', 'must start with YAML front matter'],
    ['not YAML', '---\nname: [a\n---\n', 'not valid YAML'],
    ['a list', '---\n- a\n---\n', 'must be a mapping'],
    ['no name', '---\ndescription: d\n---\n', '"name" is missing'],
    [
      'name not an identifier',
      '---\nname: Bad Name\ndescription: d\n---\n',
      'must start with a lowercase letter',
    ],
    [
      'name looks like an id',
      '---\nname: skl_0123456789abcdef0123\ndescription: d\n---\n',
      'look like a skill id',
    ],
    ['no description', '---\nname: ab\n---\n', '"description" is missing'],
    ['long description', `---\nname: ab\ndescription: ${'d'.repeat(1025)}\n---\n`, 'longer than 1024'],
  ])('refuses %s', (_label, source, message) => {
    expect(codeOf(() => parseSkillMd(source))).toContain(message);
  });
});
