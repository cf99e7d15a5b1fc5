import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SkillFile } from '../../core/records/skill.js';
import { skillDigest } from '../../core/skills/build-skill-package.js';
import { snapshotTree } from '../../../test/helpers/workdir/snapshot-tree.js';
import { projectSkills, type ProjectedSkill } from './project-skills.js';

const text = (value: string) => new TextEncoder().encode(value);

function skill(name: string, files: Record<string, string>): ProjectedSkill & { loads: number } {
  const list: SkillFile[] = Object.entries(files)
    .map(([filePath, content]) => ({ path: filePath, content: text(content) }))
    .sort((left, right) => (left.path < right.path ? -1 : 1));
  const projected = {
    name,
    digest: skillDigest(list),
    loads: 0,
    loadFiles: () => {
      projected.loads += 1;
      return Promise.resolve(list);
    },
  };
  return projected;
}

let workdir: string;
beforeEach(() => {
  workdir = mkdtempSync(path.join(os.tmpdir(), 'troupe-project-skills-'));
});
afterEach(() => rmSync(workdir, { recursive: true, force: true }));

const everyoneVisible = (names: string[]) => Promise.resolve(new Set(names));
const at = (relative: string) => path.join(workdir, '.skills', relative);

describe('projectSkills', () => {
  it('writes each skill read-only under .skills/{name}/', async () => {
    const citations = skill('citations', { 'SKILL.md': 'cite', 'ref/example.md': 'example' });
    await projectSkills({ workdir, skills: [citations], stillVisible: everyoneVisible });
    expect(readFileSync(at('citations/SKILL.md'), 'utf8')).toBe('cite');
    expect(readFileSync(at('citations/ref/example.md'), 'utf8')).toBe('example');
    expect(statSync(at('citations/SKILL.md')).mode & 0o777).toBe(0o444);
  });

  it('leaves an up-to-date copy alone (no reload, same inode) and rebuilds a tampered one', async () => {
    const citations = skill('citations', { 'SKILL.md': 'cite' });
    await projectSkills({ workdir, skills: [citations], stillVisible: everyoneVisible });
    const inode = statSync(at('citations/SKILL.md')).ino;
    await projectSkills({ workdir, skills: [citations], stillVisible: everyoneVisible });
    expect(citations.loads).toBe(1);
    expect(statSync(at('citations/SKILL.md')).ino).toBe(inode);

    chmodSync(at('citations/SKILL.md'), 0o644);
    writeFileSync(at('citations/SKILL.md'), 'tampered');
    writeFileSync(at('citations/extra.md'), 'planted');
    await projectSkills({ workdir, skills: [citations], stillVisible: everyoneVisible });
    expect(readFileSync(at('citations/SKILL.md'), 'utf8')).toBe('cite');
    expect(existsSync(at('citations/extra.md'))).toBe(false);
    expect(citations.loads).toBe(2);
  });

  it("keeps other runs' skills the user may still use, removes the rest", async () => {
    await projectSkills({
      workdir,
      skills: [skill('parent-skill', { 'SKILL.md': 'p' }), skill('revoked', { 'SKILL.md': 'r' })],
      stillVisible: everyoneVisible,
    });
    let asked: string[] = [];
    await projectSkills({
      workdir,
      skills: [skill('child-skill', { 'SKILL.md': 'c' })],
      stillVisible: (names) => {
        asked = names;
        return Promise.resolve(new Set(['parent-skill']));
      },
    });
    expect(asked.sort()).toEqual(['parent-skill', 'revoked']);
    expect(existsSync(at('parent-skill/SKILL.md'))).toBe(true);
    expect(existsSync(at('child-skill/SKILL.md'))).toBe(true);
    expect(existsSync(at('revoked'))).toBe(false);
  });

  it('replaces a .skills symlink planted to write outside the workdir', async () => {
    const outside = mkdtempSync(path.join(os.tmpdir(), 'troupe-outside-'));
    try {
      symlinkSync(outside, path.join(workdir, '.skills'));
      await projectSkills({
        workdir,
        skills: [skill('citations', { 'SKILL.md': 'cite' })],
        stillVisible: everyoneVisible,
      });
      expect(lstatSync(path.join(workdir, '.skills')).isDirectory()).toBe(true);
      expect(existsSync(path.join(outside, 'citations'))).toBe(false);
      expect(readFileSync(at('citations/SKILL.md'), 'utf8')).toBe('cite');
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('survives concurrent projections of the same skills (one copy, complete)', async () => {
    const skills = [skill('one', { 'SKILL.md': '1', 'a/b.md': 'ab' }), skill('two', { 'SKILL.md': '2' })];
    await Promise.all(
      Array.from({ length: 8 }, () => projectSkills({ workdir, skills, stillVisible: everyoneVisible })),
    );
    expect(readFileSync(at('one/a/b.md'), 'utf8')).toBe('ab');
    expect(readFileSync(at('two/SKILL.md'), 'utf8')).toBe('2');
  });

  it('creates nothing when there is nothing to project', async () => {
    mkdirSync(path.join(workdir, 'notes'));
    await projectSkills({ workdir, skills: [], stillVisible: everyoneVisible });
    expect(existsSync(path.join(workdir, '.skills'))).toBe(false);
  });

  it('follows no link planted in .skills: a skill folder or file linked outside is replaced, the outside untouched', async () => {
    const outside = mkdtempSync(path.join(os.tmpdir(), 'troupe-outside-'));
    try {
      writeFileSync(path.join(outside, 'passwd'), 'root:x:0:0\n');
      mkdirSync(path.join(outside, 'dir'));
      const before = snapshotTree(outside);
      const one = skill('one', { 'SKILL.md': '1' });
      const two = skill('two', { 'SKILL.md': '2', 'ref/a.md': 'a' });
      await projectSkills({ workdir, skills: [one, two], stillVisible: everyoneVisible });
      rmSync(at('one'), { recursive: true });
      symlinkSync(path.join(outside, 'dir'), at('one'));
      chmodSync(at('two'), 0o755);
      rmSync(at('two/ref'), { recursive: true, force: true });
      symlinkSync(outside, at('two/ref'));
      symlinkSync(path.join(outside, 'passwd'), at('stale'));
      await projectSkills({ workdir, skills: [one, two], stillVisible: everyoneVisible });
      expect(snapshotTree(outside)).toEqual(before);
      expect(readFileSync(at('one/SKILL.md'), 'utf8')).toBe('1');
      expect(readFileSync(at('two/ref/a.md'), 'utf8')).toBe('a');
      expect(lstatSync(at('two/ref')).isDirectory()).toBe(true);
      expect(existsSync(at('stale'))).toBe(false);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('leaves out a skill it cannot project, says why without a host path, and projects the others', async () => {
    const tooLong = `${'é'.repeat(200)}.md`;
    const broken = skill('broken', { 'SKILL.md': 'b', [tooLong]: 'x' });
    const fine = skill('fine', { 'SKILL.md': 'f' });
    const unprojected = await projectSkills({
      workdir,
      skills: [broken, fine],
      stillVisible: everyoneVisible,
    });
    expect(unprojected.map((entry) => entry.name)).toEqual(['broken']);
    expect(unprojected[0]?.reason).toContain('longer than 255 bytes');
    expect(unprojected[0]?.reason).not.toContain(workdir);
    expect(unprojected[0]?.reason).not.toContain('/proc/');
    expect(existsSync(at('broken'))).toBe(false);
    expect(readFileSync(at('fine/SKILL.md'), 'utf8')).toBe('f');
    expect(readdirSync(at('.')).sort()).toEqual(['fine']);
  });
});
