import { reportValue, type BuildReportCode, type BuildReportEntry } from './build-report-entry.js';
import { isReservedName } from './reserved-names.js';
import { validateSpecSkills } from './validate-spec-skills.js';

/** A spec whose shape is right; its tools are not resolved yet. */
export interface ValidSpec {
  name: string;
  description: string;
  system_prompt: string;
  /** Undefined when the spec names no tools: it then has none and is dropped (docs/inline-subagents.md). */
  tools: readonly unknown[] | undefined;
  /** Undefined when missing or unusable (it then inherits the parent's model). */
  model: string | undefined;
  /** Skill names as written and well-formed; undefined when the spec names none (it then has none). */
  skills?: string[];
}

export type SpecValidation =
  { ok: true; spec: ValidSpec; entries: BuildReportEntry[] } | { ok: false; entries: BuildReportEntry[] };

const KNOWN_FIELDS: ReadonlySet<string> = new Set([
  'name',
  'description',
  'system_prompt',
  'tools',
  'model',
  'skills',
]);
const REQUIRED_FIELDS = ['name', 'description', 'system_prompt'] as const;
// Whitespace and the characters that break out of the prompt's markup or a quoted attribute.
const FORBIDDEN_NAME_CHARACTERS = /[\s"<>&']/u;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function own(spec: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(spec, key) ? spec[key] : undefined;
}

/**
 * The shape rules of docs/inline-subagents.md for one spec: object, the three required strings, a safe and unreserved
 * name, `tools` an array when present. Every problem is reported, not only the first, so an author fixes
 * a spec in one pass.
 */
export function validateSpec(raw: unknown, index: number): SpecValidation {
  if (!isPlainObject(raw)) {
    const kind = raw === null ? 'null' : Array.isArray(raw) ? 'an array' : `a ${typeof raw}`;
    return {
      ok: false,
      entries: [
        {
          code: 'not_an_object',
          spec_index: index,
          value: reportValue(raw),
          message: `Spec #${index} is ${kind}, not an object`,
        },
      ],
    };
  }
  const rawName = own(raw, 'name');
  const specName = typeof rawName === 'string' && rawName.trim() !== '' ? rawName : undefined;
  const entry = (code: BuildReportCode, value: unknown, message: string): BuildReportEntry => ({
    code,
    spec_index: index,
    ...(specName === undefined ? {} : { spec_name: specName }),
    value: reportValue(value),
    message,
  });
  const label = specName === undefined ? `Spec #${index}` : `Spec "${specName}"`;
  const dropped: BuildReportEntry[] = [];
  const kept: BuildReportEntry[] = [];

  for (const field of REQUIRED_FIELDS) {
    const value = own(raw, field);
    if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) {
      dropped.push(entry('missing_field', value, `${label}: "${field}" is missing or empty`));
    } else if (typeof value !== 'string') {
      dropped.push(
        entry('invalid_field', value, `${label}: "${field}" must be a string, got ${typeof value}`),
      );
    }
  }
  if (specName !== undefined) {
    if (FORBIDDEN_NAME_CHARACTERS.test(specName)) {
      dropped.push(
        entry('invalid_name', specName, `${label}: a name may not contain whitespace or " < > & '`),
      );
    } else if (isReservedName(specName)) {
      dropped.push(entry('reserved_name', specName, `${label}: "${specName}" is a reserved name`));
    }
  }
  const tools = own(raw, 'tools');
  if (Object.hasOwn(raw, 'tools') && tools !== undefined && !Array.isArray(tools)) {
    dropped.push(
      entry('tools_not_array', tools, `${label}: "tools" must be an array of tool names or patterns`),
    );
  }
  const rawModel = own(raw, 'model');
  const modelUsable = typeof rawModel === 'string' && rawModel.trim() !== '';
  if (rawModel !== undefined && !modelUsable) {
    kept.push(
      entry(
        'invalid_model',
        rawModel,
        `${label}: "model" must be a non-empty "provider:model" string; the parent's model is used`,
      ),
    );
  }
  const skills = validateSpecSkills(own(raw, 'skills'), (value, message) =>
    entry('invalid_skill', value, `${label}: ${message}`),
  );
  kept.push(...skills.entries);
  for (const key of Object.keys(raw)) {
    if (!KNOWN_FIELDS.has(key)) {
      kept.push(
        entry(
          'unknown_field',
          key,
          `${label}: unknown field "${key}" is ignored (known: name, description, system_prompt, tools, model, skills)`,
        ),
      );
    }
  }
  if (dropped.length > 0) return { ok: false, entries: [...dropped, ...kept] };
  const text = (field: string): string => {
    const value = own(raw, field);
    return typeof value === 'string' ? value : '';
  };
  return {
    ok: true,
    entries: kept,
    spec: {
      name: specName ?? '',
      description: text('description'),
      system_prompt: text('system_prompt'),
      tools: Array.isArray(tools) ? (tools as unknown[]) : undefined,
      model: modelUsable ? rawModel : undefined,
      ...(skills.names === undefined ? {} : { skills: skills.names }),
    },
  };
}
