import type { AgentVisibility } from './agent.js';

/** Skills share the agents' visibility model (SPEC §1 "Access", §9). */
export type SkillVisibility = AgentVisibility;

/**
 * A skill (SPEC §9): a folder with `SKILL.md` and any files, owned by a user. `name` is a server-wide
 * identifier, like an agent slug: `config.skills` names skills, so a name must never start meaning another
 * user's skill (see `skill-name.ts`).
 */
export interface Skill {
  id: string;
  name: string;
  description: string;
  owner_id: string;
  visibility: SkillVisibility;
  /** SHA-256 over the file list and contents: equal digests mean equal folders. */
  digest: string;
  file_count: number;
  total_bytes: number;
  created_at: string;
  updated_at: string;
  /** A deleted skill keeps its row (and so its name) but loses its files. */
  deleted_at: string | null;
}

/** One file of a skill, `path` relative to the skill folder, `/`-separated. */
export interface SkillFile {
  path: string;
  content: Uint8Array;
}

export interface SkillFileInfo {
  path: string;
  size: number;
}

export interface SkillAccess {
  user_id: string;
  skill_id: string;
  created_at: string;
}
