import { lstat, readlink, realpath } from 'node:fs/promises';
import path from 'node:path';
import type { AgentMiddleware, ToolCallRequest } from '../middleware/agent-middleware.js';
import { SKILLS_DIR } from './project-skills.js';

/** Tools that only read the path they are given, though they are sensitive for other reasons. */
const READING_TOOLS: ReadonlySet<string> = new Set(['install_skill']);
/** Writers known by name, whatever their `sensitive` flag says. */
const WRITING_TOOLS: ReadonlySet<string> = new Set(['write_file', 'edit_file']);
const PATH_FIELDS = ['path', 'file_path'] as const;
const MAX_LINK_HOPS = 8;

export const SKILLS_READ_ONLY_TEXT = (requested: string) =>
  `${requested} is inside ${SKILLS_DIR}/, which is read-only: skills are projected there for reading. To change a skill, copy its folder elsewhere in the workdir, edit the copy and install it with install_skill.`;

/** The workdir paths a tool call would write, as given: none for tools that do not write a path. */
export function writtenPaths(request: Pick<ToolCallRequest, 'toolName' | 'tool' | 'input'>): string[] {
  if (READING_TOOLS.has(request.toolName)) return [];
  if (!WRITING_TOOLS.has(request.toolName) && request.tool?.sensitive !== true) return [];
  const input = request.input;
  if (typeof input !== 'object' || input === null) return [];
  return PATH_FIELDS.map((field) => (input as Record<string, unknown>)[field]).filter(
    (value): value is string => typeof value === 'string',
  );
}

function within(base: string, target: string): boolean {
  const relative = path.relative(base, target);
  return (
    relative === '' ||
    (relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative))
  );
}

/** The real path `candidate` leads to: its longest existing prefix resolved, links at the leaf followed. */
async function realTarget(candidate: string, hops = 0): Promise<string> {
  const leaf = await lstat(candidate).catch(() => undefined);
  if (leaf?.isSymbolicLink() && hops < MAX_LINK_HOPS) {
    const link = await readlink(candidate);
    return realTarget(path.resolve(path.dirname(candidate), link), hops + 1);
  }
  try {
    return await realpath(candidate);
  } catch {
    const parent = path.dirname(candidate);
    if (parent === candidate) return candidate;
    return path.join(await realTarget(parent, hops), path.basename(candidate));
  }
}

/**
 * Whether `requested` (relative to the workdir, or absolute) names something under `.skills/`, judged on the
 * string and again after following symlinks, so `notes/../.skills/x` and a link into `.skills` both count.
 */
export async function isUnderSkillsDir(workdir: string, requested: string): Promise<boolean> {
  const realWorkdir = await realpath(workdir).catch(() => path.resolve(workdir));
  const skillsRoots = [path.join(path.resolve(workdir), SKILLS_DIR), path.join(realWorkdir, SKILLS_DIR)];
  const lexical = path.isAbsolute(requested) ? path.resolve(requested) : path.resolve(realWorkdir, requested);
  if (skillsRoots.some((root) => within(root, lexical))) return true;
  const real = await realTarget(lexical);
  return skillsRoots.some((root) => within(root, real));
}

/**
 * `wrapToolCall` guard: a call that would write under `.skills/` is answered with an error result and never
 * runs. Mounted on every run, main and subagent, with or without skills of its own, since the workdir and
 * its `.skills/` are shared by the whole run tree.
 */
export function createSkillsWriteGuard(): AgentMiddleware {
  return {
    name: 'skills-write-guard',
    async wrapToolCall(request, next) {
      for (const requested of writtenPaths(request)) {
        if (await isUnderSkillsDir(request.context.workdir, requested)) {
          return { output: SKILLS_READ_ONLY_TEXT(requested), isError: true };
        }
      }
      return next(request);
    },
  };
}
