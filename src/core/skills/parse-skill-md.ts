import { parse as parseYaml } from 'yaml';
import { TroupeError } from '../errors.js';
import { skillNameProblem } from './skill-name.js';

export interface SkillManifest {
  name: string;
  description: string;
  /** The instructions: everything after the front matter. */
  body: string;
}

const MAX_DESCRIPTION_CHARS = 1024;
const FRONT_MATTER = /^---[ \t]*\n([\s\S]*?)\n---[ \t]*(?:\n|$)/;

function invalid(message: string): TroupeError {
  return new TroupeError('skill_invalid', `SKILL.md: ${message}`);
}

/**
 * Reads `SKILL.md`: YAML front matter between `---` lines with `name` (a skill name) and `description`
 * (what the skill is for, shown to models in the system prompt), then the instructions. Other front-matter
 * keys (license, metadata…) are allowed and ignored.
 */
export function parseSkillMd(text: string): SkillManifest {
  const normalized = text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  const match = FRONT_MATTER.exec(normalized);
  if (!match) throw invalid('must start with YAML front matter between "---" lines (name, description)');
  let data: unknown;
  try {
    data = parseYaml(match[1] ?? '', { maxAliasCount: 10 });
  } catch (error) {
    throw invalid(
      `the front matter is not valid YAML (${error instanceof Error ? error.message.split('\n')[0] : 'unparseable'})`,
    );
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw invalid('the front matter must be a mapping with "name" and "description"');
  }
  const record = data as Record<string, unknown>;
  const name = record.name;
  const description = record.description;
  if (typeof name !== 'string' || name.trim() === '') throw invalid('"name" is missing or not a string');
  const nameProblem = skillNameProblem(name);
  if (nameProblem !== undefined) throw invalid(`"name" ${JSON.stringify(name)}: ${nameProblem}`);
  if (typeof description !== 'string' || description.trim() === '') {
    throw invalid('"description" is missing or not a string');
  }
  const trimmed = description.trim().replace(/\s+/g, ' ');
  if (trimmed.length > MAX_DESCRIPTION_CHARS)
    throw invalid(`"description" is longer than ${MAX_DESCRIPTION_CHARS} characters`);
  return { name, description: trimmed, body: normalized.slice(match[0].length) };
}
