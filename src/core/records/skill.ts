import { z } from 'zod';
import { AGENT_VISIBILITIES, type AgentVisibility } from './agent.js';
import { nullableTimestamp, timestamp } from './record-fields.js';

/** Skills share the agents' visibility model (docs/records-and-access.md#access, §9). */
export type SkillVisibility = AgentVisibility;

/**
 * A skill (docs/skills-and-knowledge.md): a folder with `SKILL.md` and any files, owned by a user. `name` is a server-wide
 * identifier, like an agent slug: `config.skills` names skills, so a name must never start meaning another
 * user's skill (see `skill-name.ts`). `digest`: SHA-256 over the file list and contents, equal digests mean
 * equal folders. A deleted skill keeps its row (and so its name) but loses its files.
 */
export const skillRecord = z.strictObject({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  owner_id: z.string(),
  visibility: z.enum(AGENT_VISIBILITIES),
  digest: z.string(),
  file_count: z.number().int(),
  total_bytes: z.number().int(),
  created_at: timestamp,
  updated_at: timestamp,
  deleted_at: nullableTimestamp,
});
export type Skill = z.infer<typeof skillRecord>;

/** One file of a skill, `path` relative to the skill folder, `/`-separated. */
export interface SkillFile {
  path: string;
  content: Uint8Array;
}

export const skillFileInfoRecord = z.strictObject({ path: z.string(), size: z.number().int() });
export type SkillFileInfo = z.infer<typeof skillFileInfoRecord>;

export const skillAccessRecord = z.strictObject({
  user_id: z.string(),
  skill_id: z.string(),
  created_at: timestamp,
});
export type SkillAccess = z.infer<typeof skillAccessRecord>;
