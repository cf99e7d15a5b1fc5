import type { Storage } from '../../core/ports/storage.js';
import type { AgentConfig } from '../../core/records/agent.js';
import type { Skill } from '../../core/records/skill.js';
import { unprojectablePath } from '../../core/skills/skill-path.js';

/** Skill names an agent selects, its own and its inline specs' (whatever their shape, checked elsewhere). */
function selectedNames(config: AgentConfig): Set<string> {
  const fromSpecs = (config.subagent_specs ?? []).flatMap((spec) => {
    const skills =
      typeof spec === 'object' && spec !== null ? (spec as { skills?: unknown }).skills : undefined;
    return Array.isArray(skills) ? skills.filter((name): name is string => typeof name === 'string') : [];
  });
  return new Set([...(config.skills ?? []), ...fromSpecs]);
}

/**
 * The selected skills, among those the author may use, that hold a file no workdir can take (a name too long
 * in bytes), each with why: runs leave them out (`projectSkills`), the build report says so.
 */
export async function unprojectableSkills(
  storage: Storage,
  usable: readonly Skill[],
  config: AgentConfig,
): Promise<Map<string, string>> {
  const selected = selectedNames(config);
  const found = new Map<string, string>();
  for (const skill of usable.filter((candidate) => selected.has(candidate.name))) {
    const files = await storage.skills.listFiles(skill.id);
    const reason = files.map((file) => unprojectablePath(file.path)).find((problem) => problem !== undefined);
    if (reason !== undefined) found.set(skill.name, reason);
  }
  return found;
}
