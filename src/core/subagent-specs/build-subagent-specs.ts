import type { BuildReportEntry } from './build-report-entry.js';
import type { ResolvedSubagent } from './resolved-subagent.js';
import { resolveSpecTools } from './resolve-spec-tools.js';
import { validateSpec } from './validate-spec.js';

export interface BuildSubagentSpecsInput {
  /** `config.subagent_specs` as stored: anything, since bad entries are reported rather than refused. */
  specs: readonly unknown[];
  /** The parent's tool names; a subagent's tools are always a subset. */
  parentTools: readonly string[];
  /** Inherited by specs that name no model. */
  parentModel: string;
  /** Built-in subagents; they take their names first. */
  builtins: readonly ResolvedSubagent[];
  /** Registered subagent slugs the caller can see: an inline spec of the same name shadows one (reported). */
  registeredSlugs?: readonly string[];
  /** Tools subagents may not hold here, on top of the reserved ones (e.g. sensitive tools outside always_trust). */
  disabledTools?: readonly string[];
  /** Tool-name prefixes that cannot be listed now (an unreachable MCP server): reported, not dropped. */
  unverifiedPrefixes?: readonly string[];
}

export interface BuildSubagentSpecsResult {
  /** The namespace prefix of built-ins and inline specs, in order: built-ins first, then specs as written. */
  subagents: ResolvedSubagent[];
  /** One entry per dropped spec, dropped value or warning, in spec order. */
  report: BuildReportEntry[];
}

/**
 * Turns `config.subagent_specs` into subagents (docs/inline-subagents.md, the Profy builder). Pure and total: it never
 * throws, whatever the input, so the same function serves the silent run time and the loud authoring report.
 */
export function buildSubagentSpecs(input: BuildSubagentSpecsInput): BuildSubagentSpecsResult {
  const specs: readonly unknown[] = Array.isArray(input.specs) ? input.specs : [];
  const parentTools = [...new Set(input.parentTools.filter((tool) => typeof tool === 'string'))];
  const disabledTools = new Set(input.disabledTools ?? []);
  const registered = new Set(input.registeredSlugs ?? []);
  const subagents: ResolvedSubagent[] = [...input.builtins];
  const taken = new Map(input.builtins.map((builtin) => [builtin.name, 'a built-in subagent']));
  const report: BuildReportEntry[] = [];
  // Names of dropped specs: a later spec of the same name runs only because of that drop (reported).
  const droppedNames = new Map<string, number>();
  const noteDropped = (name: string | undefined, index: number): void => {
    if (name !== undefined && !droppedNames.has(name)) droppedNames.set(name, index);
  };

  specs.forEach((raw, index) => {
    const validation = validateSpec(raw, index);
    report.push(...validation.entries);
    if (!validation.ok) {
      noteDropped(validation.entries.find((entry) => entry.spec_name !== undefined)?.spec_name, index);
      return;
    }
    const { spec } = validation;
    const where = { spec_index: index, spec_name: spec.name };
    const holder = taken.get(spec.name);
    if (holder !== undefined) {
      report.push({
        code: 'duplicate_name',
        ...where,
        value: spec.name,
        message: `Spec "${spec.name}": the name is already used by ${holder}; the first one wins`,
      });
      return;
    }
    // No `tools` means an empty list (docs/inline-subagents.md, the Profy seed), never "all the parent's tools": a spec that
    // forgot the field must not quietly get every tool. It is then dropped for having none, reported below.
    if (spec.tools === undefined) {
      report.push({
        code: 'no_tools',
        ...where,
        value: spec.name,
        message: `Spec "${spec.name}": no "tools" list, so it has no tools and is dropped; add at least one tool, e.g. "tools": ["read_file"] (general-purpose covers pure reasoning)`,
      });
      return;
    }
    const resolved = resolveSpecTools({
      requested: spec.tools,
      parentTools,
      disabledTools,
      unverifiedPrefixes: input.unverifiedPrefixes ?? [],
      specIndex: index,
      specName: spec.name,
    });
    report.push(...resolved.entries);
    const { tools, unverified } = resolved;
    // A spec whose only tools could not be listed is not known to be empty; it is checked again at run time.
    if (tools.length === 0 && unverified === 0) {
      report.push({
        code: 'no_tools',
        ...where,
        value: spec.name,
        message: `Spec "${spec.name}": no tool is left after resolution; give it at least one of the parent's tools (general-purpose covers pure reasoning)`,
      });
      noteDropped(spec.name, index);
      return;
    }
    taken.set(spec.name, `spec #${index}`);
    if (registered.has(spec.name)) {
      report.push({
        code: 'shadows_registered',
        ...where,
        value: spec.name,
        message: `Spec "${spec.name}" shadows the registered subagent of the same slug: inline specs come first in the task namespace`,
      });
    }
    const replaces = droppedNames.get(spec.name);
    if (replaces !== undefined) {
      report.push({
        code: 'replaces_dropped',
        ...where,
        value: spec.name,
        message: `Spec #${index} "${spec.name}" runs under this name only because spec #${replaces} of the same name was dropped; fix or remove one of them`,
      });
    }
    subagents.push({
      name: spec.name,
      description: spec.description,
      system_prompt: spec.system_prompt,
      tools,
      model: spec.model ?? input.parentModel,
      source: 'inline',
      spec_index: index,
      ...(spec.skills && spec.skills.length > 0 ? { skills: spec.skills } : {}),
      ...(replaces === undefined ? {} : { replaces_dropped_spec_index: replaces }),
    });
  });
  return { subagents, report };
}
