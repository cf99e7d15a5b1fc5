import type { AgentConfig } from '../../core/records/agent.js';
import { reportValue, type BuildReportEntry } from '../../core/subagent-specs/build-report-entry.js';
import type { ResolvedSubagent } from '../../core/subagent-specs/resolved-subagent.js';
import { skillNameProblem } from '../../core/skills/skill-name.js';

const unknown = (name: string) =>
  `skill "${name}" does not exist or is not visible to you; it is not projected at run time`;
const unprojectable = (name: string, reason: string) =>
  `skill "${name}" cannot be projected (${reason}); runs go on without it`;

/**
 * Build report entries for `config.skills` and the skills of inline specs (docs/skills-and-knowledge.md): a malformed name, or a
 * skill whose files cannot be projected (`unprojectable`: name → why), is `invalid_skill`; a name the author
 * cannot use is `unknown_skill`. All are dropped at run time, silently. Without `visible` (the offline CLI
 * check) only the shape is checked.
 */
export function skillReportEntries(
  config: AgentConfig,
  subagents: readonly ResolvedSubagent[],
  visible: readonly string[] | undefined,
  unprojectableSkills: ReadonlyMap<string, string> = new Map(),
): BuildReportEntry[] {
  const known = visible === undefined ? undefined : new Set(visible);
  const entries: BuildReportEntry[] = [];
  for (const name of config.skills ?? []) {
    const problem = skillNameProblem(name);
    if (problem !== undefined) {
      entries.push({
        code: 'invalid_skill',
        spec_index: null,
        value: reportValue(name),
        message: `Agent skill ${JSON.stringify(name)} is dropped: ${problem}`,
      });
    } else if (known !== undefined && !known.has(name)) {
      entries.push({
        code: 'unknown_skill',
        spec_index: null,
        value: name,
        message: `Agent ${unknown(name)}`,
      });
    } else if (unprojectableSkills.has(name)) {
      const reason = unprojectableSkills.get(name) ?? '';
      entries.push({
        code: 'invalid_skill',
        spec_index: null,
        value: name,
        message: `Agent ${unprojectable(name, reason)}`,
      });
    }
  }
  if (known === undefined) return entries;
  for (const subagent of subagents) {
    if (subagent.source !== 'inline') continue;
    for (const name of subagent.skills ?? []) {
      const reason = unprojectableSkills.get(name);
      if (known.has(name) && reason !== undefined) {
        entries.push({
          code: 'invalid_skill',
          spec_index: subagent.spec_index,
          spec_name: subagent.name,
          value: name,
          message: `Spec "${subagent.name}": ${unprojectable(name, reason)}`,
        });
      }
      if (known.has(name)) continue;
      entries.push({
        code: 'unknown_skill',
        spec_index: subagent.spec_index,
        spec_name: subagent.name,
        value: name,
        message: `Spec "${subagent.name}": ${unknown(name)}`,
      });
    }
  }
  return entries;
}
