import path from 'node:path';
import type { AgentMiddleware, ToolCallRequest } from '../../core/ports/agent-middleware.js';
import { openInWorkdir } from '../tools/workdir/open-in-workdir.js';
import { SKILLS_DIR } from '../tools/workdir/open-skills-root.js';

/** Tools that only read the path they are given, though they are sensitive for other reasons. */
const READING_TOOLS: ReadonlySet<string> = new Set(['install_skill']);
/** Writers known by name, whatever their `sensitive` flag says. */
const WRITING_TOOLS: ReadonlySet<string> = new Set(['write_file', 'edit_file']);
const PATH_FIELDS = ['path', 'file_path'] as const;

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

function namesSkillsDir(relative: string): boolean {
  return relative === SKILLS_DIR || relative.startsWith(`${SKILLS_DIR}/`);
}

/**
 * Whether `requested` (relative to the workdir, or absolute) leads under `.skills/`: resolved by the same
 * descriptor walk the file tools write through (`openInWorkdir`, mode `locate`), so `notes/../.skills/x` and a
 * link into `.skills` (dangling or not, at any component) both count. A path that walk refuses is refused by
 * the tool as well; the string alone decides then.
 */
export async function isUnderSkillsDir(workdir: string, requested: string): Promise<boolean> {
  try {
    const located = await openInWorkdir(workdir, requested, 'locate');
    await located.handle.close();
    return namesSkillsDir(located.shownPath);
  } catch {
    return namesSkillsDir(path.posix.normalize(requested));
  }
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
