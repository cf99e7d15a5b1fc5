import { toTroupeError } from '../../core/errors.js';
import type { Storage } from '../../core/ports/storage.js';
import type { Skill } from '../../core/records/skill.js';
import { isValidSkillName } from '../../core/skills/skill-name.js';
import type { AgentMiddleware } from '../../core/ports/agent-middleware.js';
import type { MiddlewareFactory } from '../middleware/middleware-factory.js';
import { projectSkills, type UnprojectedSkill } from './project-skills.js';
import { createSkillsWriteGuard } from './skills-write-guard.js';
import { skillsPromptSection } from './skills-prompt.js';

export interface SkillsMiddlewareDeps {
  storage: Storage;
  /** Operational warnings (a skill left out of a run because it could not be projected). */
  warn?: (message: string, context?: Record<string, unknown>) => void;
}

/**
 * Skills at run time (docs/skills-and-knowledge.md). Every run gets the `.skills/` write guard. A run whose agent (or inline
 * spec) names skills gets them projected into its workdir and listed in its system prompt — only the ones
 * its user may use now, in config order; unknown and invisible names are skipped silently (the build report
 * is where authors hear about them), and so is a skill that cannot be projected (logged).
 */
export function createSkillsMiddleware(deps: SkillsMiddlewareDeps): MiddlewareFactory {
  const { storage } = deps;
  return async ({ agent, user, project }) => {
    const guard = createSkillsWriteGuard();
    const names = [...new Set((agent.config.skills ?? []).filter(isValidSkillName))];
    if (names.length === 0) return [guard];
    const visible = await storage.skills.listUsable(user, { names });
    const byName = new Map(visible.map((skill) => [skill.name, skill]));
    const skills = names
      .map((name) => byName.get(name))
      .filter((skill): skill is Skill => skill !== undefined);
    const unprojected = await projectSkills({
      workdir: project.workdir,
      skills: skills.map((skill) => ({
        name: skill.name,
        digest: skill.digest,
        loadFiles: () => storage.skills.readFiles(skill.id),
      })),
      stillVisible: async (others) =>
        new Set((await storage.skills.listUsable(user, { names: others })).map((skill) => skill.name)),
    }).catch((error: unknown): UnprojectedSkill[] =>
      skills.map((skill) => ({ name: skill.name, reason: toTroupeError(error).message })),
    );
    // A skill that cannot be projected is left out of this run (the build report says why it is invalid):
    // a prompt listing a skill that is not on disk would mislead the model, and the others still serve.
    for (const { name, reason } of unprojected) {
      deps.warn?.(`Skill ${name} was not projected: ${reason}`, { agent_id: agent.id, skill: name });
    }
    const left = new Set(unprojected.map((entry) => entry.name));
    const projected = skills.filter((skill) => !left.has(skill.name));
    if (projected.length === 0) return [guard];
    const section = skillsPromptSection(projected);
    const prompt: AgentMiddleware = {
      name: 'skills',
      wrapModelCall(request, next) {
        return next({ ...request, system: request.system ? `${request.system}\n\n${section}` : section });
      },
    };
    return [prompt, guard];
  };
}
