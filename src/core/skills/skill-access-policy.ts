import type { Skill } from '../records/skill.js';
import type { Actor } from '../records/user.js';
import { isAdmin } from '../records/user.js';

/**
 * Who may use and manage a skill: the agent rules (`agent-access-policy.ts`) applied to skills. Using a
 * skill means seeing it, selecting it in a config and having it projected into a run's workdir.
 * A deleted skill is usable by nobody.
 */
export function canUseSkill(actor: Actor, skill: Skill, hasGrant: boolean): boolean {
  if (skill.deleted_at !== null) return false;
  return isAdmin(actor) || skill.owner_id === actor.id || hasGrant || skill.visibility === 'public';
}

/** Replacing, deleting and changing visibility are for the owner and admins. */
export function canManageSkill(actor: Actor, skill: Skill): boolean {
  if (skill.deleted_at !== null) return false;
  return isAdmin(actor) || skill.owner_id === actor.id;
}

/** Owners grant on `shared` skills; admins always may. */
export function canGrantSkill(actor: Actor, skill: Skill): boolean {
  if (skill.deleted_at !== null) return false;
  return isAdmin(actor) || (skill.owner_id === actor.id && skill.visibility === 'shared');
}
