import type { Skill } from '../../core/records/skill.js';
import { SKILLS_DIR } from '../tools/workdir/open-skills-root.js';

export const SKILLS_PROMPT_HEADING = '## Skills';

/** The system-prompt section of a run with skills (docs/skills-and-knowledge.md): one `name: description` line per skill. */
export function skillsPromptSection(skills: readonly Pick<Skill, 'name' | 'description'>[]): string {
  return [
    SKILLS_PROMPT_HEADING,
    '',
    `Skills are folders of instructions and files, available read-only in the workdir under \`${SKILLS_DIR}/\`.`,
    `Before you use a skill, read \`${SKILLS_DIR}/{name}/SKILL.md\` (with read_file) and follow it; it may point to other files in its folder.`,
    `Never write under \`${SKILLS_DIR}/\`.`,
    '',
    'Available skills:',
    '',
    skills.map((skill) => `- ${skill.name}: ${skill.description}`).join('\n'),
  ].join('\n');
}
