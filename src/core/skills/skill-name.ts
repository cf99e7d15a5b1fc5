/**
 * Skill names are identifiers in the style of agent slugs: a lowercase letter, then letters, digits, `_` or
 * `-`; 2 to 63 characters. They are unique across the server and a deleted skill keeps its name, so a name
 * in `config.skills` can never be captured by another user's skill (the look-alike problem of delegation).
 */
export const SKILL_NAME_PATTERN = /^[a-z][a-z0-9_-]{1,62}$/;

const SKILL_ID_PATTERN = /^skl_[0-9a-f]{20}$/;

export function isSkillId(value: string): boolean {
  return SKILL_ID_PATTERN.test(value);
}

/** Why `name` is not an acceptable skill name, or undefined when it is. */
export function skillNameProblem(name: string): string | undefined {
  if (!SKILL_NAME_PATTERN.test(name)) {
    return 'a skill name must start with a lowercase letter and contain only a-z, 0-9, "_" or "-" (2 to 63 chars)';
  }
  // `/api/skills/{id}` takes an id or a name; a name must not read as another skill's id.
  if (isSkillId(name)) return 'a skill name must not look like a skill id';
  return undefined;
}

export function isValidSkillName(name: string): boolean {
  return skillNameProblem(name) === undefined;
}
