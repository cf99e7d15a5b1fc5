import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { TroupeError } from '../../../core/errors.js';
import { buildSkillPackage } from '../../../core/skills/build-skill-package.js';
import { DEFAULT_SKILL_LIMITS, type SkillLimits } from '../../../core/skills/skill-limits.js';
import {
  paxPath,
  skillMd,
  tarGzOf,
  tarOf,
  withDeclaredSizes,
  zipOf,
} from '../../../../test/helpers/skills/skill-archives.js';
import { readSkillArchive } from './read-skill-archive.js';

const LIMITS: SkillLimits = { ...DEFAULT_SKILL_LIMITS, maxTotalBytes: 1024 * 1024, maxFiles: 20 };

function failure(archive: Uint8Array, limits = LIMITS): string {
  try {
    buildSkillPackage(readSkillArchive(archive, limits), limits);
  } catch (error) {
    if (error instanceof TroupeError) return `${error.code}: ${error.message}`;
    throw error;
  }
  return 'accepted';
}

const zeros = (bytes: number) => new Uint8Array(bytes);

describe('zip skills', () => {
  it('unpacks stored and deflated entries inside one top folder', () => {
    const archive = zipOf([
      { path: 'citations/SKILL.md', content: skillMd('citations'), level: 9 },
      { path: 'citations/data/table.bin', content: new Uint8Array([0, 1, 2, 250]), level: 0 },
      { path: 'citations/empty/', content: new Uint8Array(0) },
    ]);
    const pkg = buildSkillPackage(readSkillArchive(archive, LIMITS), LIMITS);
    expect(pkg.name).toBe('citations');
    expect(pkg.files.map((file) => [file.path, file.content.byteLength])).toEqual([
      ['SKILL.md', skillMd('citations').length],
      ['data/table.bin', 4],
    ]);
  });

  it.each([
    ['../evil.sh', 'climbs out'],
    ['/etc/cron.d/evil', 'absolute path'],
    ['C:/evil.dll', 'drive letter'],
    ['a\\..\\..\\evil', 'backslash'],
  ])('refuses the traversal entry %j', (path, reason) => {
    const result = failure(
      zipOf([
        { path: 'SKILL.md', content: skillMd('x1') },
        { path, content: 'boom' },
      ]),
    );
    expect(result).toMatch(/^skill_invalid: /);
    expect(result).toContain(reason);
  });

  it('refuses symlinks and other special files by their Unix mode', () => {
    const link = zipOf([
      { path: 'SKILL.md', content: skillMd('x1') },
      { path: 'passwd', content: '/etc/passwd', mode: 0o120777 },
    ]);
    expect(failure(link)).toMatch(/^skill_invalid: .*symbolic link/);
    const fifo = zipOf([
      { path: 'SKILL.md', content: skillMd('x1') },
      { path: 'pipe', content: '', mode: 0o010644 },
    ]);
    expect(failure(fifo)).toMatch(/^skill_invalid: .*not a regular file/);
  });

  it('stops a zip bomb at the byte budget, even when its headers lie about the sizes', () => {
    // The bomb comes first in the central directory, so it is inflated before any other check can fail.
    const bomb = zipOf([
      { path: 'zeros.bin', content: zeros(8 * 1024 * 1024), level: 9 },
      { path: 'SKILL.md', content: skillMd('x1') },
    ]);
    expect(bomb.byteLength).toBeLessThan(64 * 1024);
    expect(failure(bomb)).toMatch(/^skill_too_large: /);
    // Declared sizes of 1 byte: the quick pre-check passes, the running count while inflating does not.
    expect(failure(withDeclaredSizes(bomb, 1))).toMatch(
      /^skill_too_large: The skill unpacks to more than 1048576 bytes/,
    );
  });

  it('refuses more files than the limit before inflating anything', () => {
    const many = zipOf([
      { path: 'SKILL.md', content: skillMd('x1') },
      ...Array.from({ length: 25 }, (_, index) => ({ path: `f${index}`, content: 'x' })),
    ]);
    expect(failure(many)).toMatch(/^skill_too_large: A skill may hold at most 20 files/);
  });

  it('refuses a corrupt or truncated zip with a clear error, never a crash', () => {
    const good = zipOf([{ path: 'SKILL.md', content: skillMd('x1'), level: 9 }]);
    expect(failure(good.slice(0, good.byteLength - 30))).toMatch(/^skill_invalid: Zip archive: /);
    const flipped = good.slice();
    flipped[40] = (flipped[40] ?? 0) ^ 0xff;
    expect(failure(flipped)).toMatch(/^skill_invalid: /);
  });
});

describe('tar.gz skills', () => {
  it('unpacks files, folders, pax paths and GNU long names', () => {
    const longName = `docs/${'n'.repeat(120)}.md`;
    const archive = tarGzOf([
      { path: './', type: '5' },
      { path: './SKILL.md', content: skillMd('tarred') },
      paxPath(`./${'p'.repeat(110)}/readme.md`),
      { path: 'ignored-by-pax', content: 'pax' },
      { path: '././@LongLink', type: 'L', content: `${longName}\0` },
      { path: 'truncated', content: 'long' },
    ]);
    const pkg = buildSkillPackage(readSkillArchive(archive, LIMITS), LIMITS);
    expect(pkg.name).toBe('tarred');
    expect(pkg.files.map((file) => file.path)).toEqual([
      'SKILL.md',
      longName,
      `${'p'.repeat(110)}/readme.md`,
    ]);
  });

  it.each([
    ['symlink', { path: 'passwd', type: '2', linkname: '/etc/passwd' }, 'symbolic link'],
    ['hard link', { path: 'shadow', type: '1', linkname: '/etc/shadow' }, 'hard link'],
    ['character device', { path: 'null', type: '3' }, 'device or pipe'],
    ['fifo', { path: 'pipe', type: '6' }, 'device or pipe'],
  ])('refuses a %s', (_label, hostile, reason) => {
    expect(failure(tarGzOf([{ path: 'SKILL.md', content: skillMd('x1') }, hostile]))).toContain(reason);
  });

  it('refuses traversal through plain names and through pax paths', () => {
    expect(
      failure(
        tarGzOf([
          { path: 'SKILL.md', content: skillMd('x1') },
          { path: '../../evil', content: 'x' },
        ]),
      ),
    ).toContain('climbs out');
    expect(
      failure(
        tarGzOf([
          { path: 'SKILL.md', content: skillMd('x1') },
          paxPath('/root/.ssh/authorized_keys'),
          { path: 'ok', content: 'x' },
        ]),
      ),
    ).toContain('absolute path');
  });

  it('stops a gzip bomb at the output cap', () => {
    const bomb = new Uint8Array(
      gzipSync(
        tarOf([
          { path: 'SKILL.md', content: skillMd('x1') },
          { path: 'zeros', content: zeros(16 * 1024 * 1024) },
        ]),
      ),
    );
    expect(bomb.byteLength).toBeLessThan(64 * 1024);
    expect(failure(bomb)).toMatch(/^skill_too_large: /);
  });

  it('refuses a corrupt header (bad checksum) and a truncated archive', () => {
    const tar = tarOf([{ path: 'SKILL.md', content: skillMd('x1') }]);
    const corrupt = tar.slice();
    corrupt[10] = 0x41;
    expect(failure(new Uint8Array(gzipSync(corrupt)))).toContain('checksum');
    expect(failure(new Uint8Array(gzipSync(tar.slice(0, 700))))).toMatch(
      /^skill_invalid: Tar archive: truncated/,
    );
  });
});

describe('archive kind and size', () => {
  it('reads the kind from the magic bytes and refuses anything else', () => {
    expect(failure(new TextEncoder().encode('{"not":"an archive"}'))).toBe(
      'skill_invalid: The upload is neither a .zip nor a .tar.gz archive',
    );
  });

  it('refuses an archive over the compressed size limit before reading it', () => {
    const archive = zipOf([{ path: 'SKILL.md', content: skillMd('x1') }]);
    expect(failure(archive, { ...LIMITS, maxArchiveBytes: 10 })).toMatch(/^payload_too_large: /);
  });
});
