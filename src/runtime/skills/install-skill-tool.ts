import { z } from 'zod';
import { TroupeError } from '../../core/errors.js';
import type { Storage } from '../../core/ports/storage.js';
import { SUBAGENT_TEXTS } from '../../core/subagents/subagent-texts.js';
import { defineTool, type TroupeTool } from '../../core/tools/troupe-tool.js';
import type { SkillService } from './skill-service.js';
import { runCapabilities } from '../../core/runs/run-capabilities.js';
import { toolNotAvailableRefusal } from '../../core/tools/tool-not-available.js';

export const INSTALL_SKILL_TOOL_NAME = 'install_skill';

const installSkillInputSchema = z
  .object({
    path: z
      .string()
      .min(1)
      .max(1000)
      .describe(
        'Folder in the project workdir that holds SKILL.md (name and description in its front matter) and the skill files.',
      ),
    replace: z
      .boolean()
      .optional()
      .describe('Publish a new version when you already have a skill of that name (default false).'),
  })
  .strict();

export type InstallSkillInput = z.infer<typeof installSkillInputSchema>;

export interface InstallSkillToolDeps {
  storage: Storage;
  skills: SkillService;
}

/**
 * `install_skill {path, replace?}` (docs/skills-and-knowledge.md): turns a workdir folder into a private skill of the run's user.
 * Main agents only and sensitive (approval outside `always_trust`). Subagents never see it (the subagent
 * filter hides and refuses it); the tool refuses too, should a subagent run reach it by any other road.
 */
export function createInstallSkillTool(deps: InstallSkillToolDeps): TroupeTool<InstallSkillInput> {
  return defineTool<InstallSkillInput>({
    name: INSTALL_SKILL_TOOL_NAME,
    effect: 'idempotent',
    description:
      'Install a skill for the user from a folder in the project workdir: the folder must hold SKILL.md with YAML front ' +
      'matter (name, description) and may hold any other files. The skill becomes a private skill of the user that ' +
      'agents can select in config.skills. It is not projected into the current run.',
    inputSchema: installSkillInputSchema,
    sensitive: true,
    async execute(input, context) {
      if (runCapabilities(context.run).subagent) {
        throw toolNotAvailableRefusal(
          INSTALL_SKILL_TOOL_NAME,
          SUBAGENT_TEXTS.toolNotAvailable(INSTALL_SKILL_TOOL_NAME),
        );
      }
      const user = await deps.storage.users.get(context.run.user_id);
      if (!user) throw new TroupeError('user_not_found', 'The run user no longer exists');
      context.abortSignal.throwIfAborted();
      const { skill, created } = await deps.skills.createFromFolder(user, context.workdir, input.path, {
        replace: input.replace === true,
      });
      const verb = created ? 'Installed' : 'Updated';
      return `${verb} skill "${skill.name}" (${skill.file_count} files, ${skill.total_bytes} bytes, ${skill.visibility}): ${skill.description}`;
    },
  });
}
