import { createHash } from 'node:crypto';
import { TroupeError } from '../errors.js';
import type { SkillFile } from '../records/skill.js';
import { parseSkillMd } from './parse-skill-md.js';
import type { SkillLimits } from './skill-limits.js';
import { isArchiverJunk, normalizeSkillPath } from './skill-path.js';

export const SKILL_MD = 'SKILL.md';

/** An entry as a reader found it: the raw name and the bytes. */
export interface RawSkillEntry {
  path: string;
  content: Uint8Array;
}

/** A checked skill, ready to store. */
export interface SkillPackage {
  name: string;
  description: string;
  /** Sorted by path; `SKILL.md` among them. */
  files: SkillFile[];
  digest: string;
  total_bytes: number;
}

function invalid(message: string): TroupeError {
  return new TroupeError('skill_invalid', message);
}

export function tooLarge(message: string, limits: Partial<SkillLimits> = {}): TroupeError {
  return new TroupeError('skill_too_large', message, { details: { ...limits } });
}

/**
 * The one gate every way of making a skill goes through (archive, workdir folder, CLI, demo seed): paths
 * normalised and refused on any trick, limits on count and bytes, `SKILL.md` at the root (or at the root
 * of the one folder the archive holds) with valid front matter.
 */
export function buildSkillPackage(entries: readonly RawSkillEntry[], limits: SkillLimits): SkillPackage {
  const files: SkillFile[] = [];
  for (const entry of entries) {
    const normalized = normalizeSkillPath(entry.path, limits);
    if ('problem' in normalized)
      throw invalid(`Entry ${JSON.stringify(entry.path.slice(0, 200))} ${normalized.problem}`);
    if (isArchiverJunk(normalized.path)) continue;
    files.push({ path: normalized.path, content: entry.content });
  }
  const rooted = stripSingleTopFolder(files);
  rooted.sort((left, right) => (left.path < right.path ? -1 : left.path > right.path ? 1 : 0));
  checkTree(rooted);
  if (rooted.length > limits.maxFiles) {
    throw tooLarge(`A skill may hold at most ${limits.maxFiles} files; this one has ${rooted.length}`, {
      maxFiles: limits.maxFiles,
    });
  }
  const totalBytes = rooted.reduce((sum, file) => sum + file.content.byteLength, 0);
  if (totalBytes > limits.maxTotalBytes) {
    throw tooLarge(`A skill may hold at most ${limits.maxTotalBytes} bytes; this one has ${totalBytes}`, {
      maxTotalBytes: limits.maxTotalBytes,
    });
  }
  const skillMd = rooted.find((file) => file.path === SKILL_MD);
  if (!skillMd)
    throw invalid(
      'SKILL.md is missing: put it at the root of the skill folder (or of the one folder the archive holds)',
    );
  if (skillMd.content.byteLength > limits.maxSkillMdBytes) {
    throw tooLarge(`SKILL.md may be at most ${limits.maxSkillMdBytes} bytes`, {
      maxSkillMdBytes: limits.maxSkillMdBytes,
    });
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(skillMd.content);
  } catch {
    throw invalid('SKILL.md is not valid UTF-8 text');
  }
  const manifest = parseSkillMd(text);
  return {
    name: manifest.name,
    description: manifest.description,
    files: rooted,
    digest: skillDigest(rooted),
    total_bytes: totalBytes,
  };
}

/** `folder/SKILL.md, folder/x` → `SKILL.md, x` when everything sits in one folder and there is no root SKILL.md. */
function stripSingleTopFolder(files: SkillFile[]): SkillFile[] {
  if (files.some((file) => file.path === SKILL_MD)) return files;
  const tops = new Set(files.map((file) => file.path.split('/')[0]));
  const [top] = tops;
  if (tops.size !== 1 || top === undefined || !files.every((file) => file.path.startsWith(`${top}/`)))
    return files;
  return files.map((file) => ({ path: file.path.slice(top.length + 1), content: file.content }));
}

/** No path twice, and no path that is both a file and a folder of other files. */
function checkTree(sorted: readonly SkillFile[]): void {
  const paths = new Set<string>();
  for (const file of sorted) {
    if (paths.has(file.path)) throw invalid(`Entry ${JSON.stringify(file.path)} appears twice`);
    paths.add(file.path);
  }
  for (const file of sorted) {
    const parts = file.path.split('/');
    for (let depth = 1; depth < parts.length; depth += 1) {
      const folder = parts.slice(0, depth).join('/');
      if (paths.has(folder)) throw invalid(`${JSON.stringify(folder)} is both a file and a folder`);
    }
  }
}

/** Order-independent over a sorted list: path and content hash of every file. */
export function skillDigest(sorted: readonly SkillFile[]): string {
  const hash = createHash('sha256');
  for (const file of sorted) {
    hash.update(file.path, 'utf8');
    hash.update('\0');
    hash.update(createHash('sha256').update(file.content).digest('hex'));
    hash.update('\n');
  }
  return hash.digest('hex');
}
