import type { ResolvedSubagentView } from '../api/types.ts';
import {
  dropsSpec,
  isDrop,
  type BuildReportEntry,
} from '../../../src/core/subagent-specs/build-report-entry.ts';

/** One line of the spec editor's report: a dropped spec or value, or a warning, with where and why. */
export interface BuildWarning {
  reason: string;
  value: string;
  /** Which spec, as the console names it: "#2 helper" (its 1-based place in `subagent_specs`, then its name). */
  spec: string | null;
  message: string | null;
  specIndex: number | null;
  specName: string | null;
  /** Something was dropped (a warning drops nothing). */
  dropped: boolean;
  /** The whole spec was dropped, not one of its values. */
  specDropped: boolean;
}

export interface NormalisedReport {
  warnings: BuildWarning[];
  /** Names of the subagents that will run (built-ins and surviving inline specs), when the server lists them. */
  resolved: string[] | null;
  /** The same, with their tools and where they come from. */
  subagents: ResolvedSubagentView[] | null;
}

const record = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;

function render(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return Object.prototype.toString.call(value);
  }
}

/**
 * A spec as the editor shows it: numbered from 1, like the editor's lines ("#1" is `subagent_specs[0]`);
 * the API's `spec_index` stays 0-based.
 */
export function specNumber(index: number): string {
  return `#${index + 1}`;
}

export function specLabel(index: number | null, name: string | null): string | null {
  if (index === null) return name;
  return name === null ? specNumber(index) : `${specNumber(index)} ${name}`;
}

/** What the report's entries amount to, each counted once, as its list shows them. */
export interface ReportCounts {
  /** Specs dropped whole (each spec once, however many reasons it has). */
  specsDropped: number;
  /** Values (a tool, a model, a skill) removed from specs that still run, or from the agent itself. */
  valuesRemoved: number;
  /** Values removed from specs that were dropped anyway: they change nothing more. */
  valuesOfDroppedSpecs: number;
  warnings: number;
}

export function reportCounts(warnings: readonly BuildWarning[]): ReportCounts {
  const droppedSpecs = new Set(warnings.filter((item) => item.specDropped).map((item) => item.specIndex));
  const values = warnings.filter((item) => item.dropped && !item.specDropped);
  const ofDropped = values.filter(
    (item) => item.specIndex !== null && droppedSpecs.has(item.specIndex),
  ).length;
  return {
    specsDropped: droppedSpecs.size,
    valuesRemoved: values.length - ofDropped,
    valuesOfDroppedSpecs: ofDropped,
    warnings: warnings.filter((item) => !item.dropped).length,
  };
}

/** "1 spec dropped, 2 values removed (their specs still run), 1 warning" — only the parts that are not zero. */
export function countsLine(counts: ReportCounts): string {
  const plural = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;
  const parts = [
    counts.specsDropped > 0 ? plural(counts.specsDropped, 'spec dropped', 'specs dropped') : '',
    counts.valuesRemoved > 0
      ? `${plural(counts.valuesRemoved, 'value removed', 'values removed')} (${counts.valuesRemoved === 1 ? 'its spec still runs' : 'their specs still run'})`
      : '',
    counts.warnings > 0 ? plural(counts.warnings, 'warning', 'warnings') : '',
  ].filter((part) => part !== '');
  return parts.join(', ');
}

/** How one entry of the list is tagged: what it did to its spec. */
export function entryEffect(warning: BuildWarning, counts: readonly BuildWarning[]): string {
  if (!warning.dropped) return 'warning';
  if (warning.specDropped) return 'spec dropped';
  const specGone =
    warning.specIndex !== null &&
    counts.some((item) => item.specDropped && item.specIndex === warning.specIndex);
  return specGone ? 'removed (the spec is dropped anyway)' : 'removed; the spec still runs';
}

function toWarning(entry: unknown): BuildWarning {
  const item = record(entry) ?? {};
  const reason = render(item.code ?? item.reason ?? 'warning');
  const specIndex = typeof item.spec_index === 'number' ? item.spec_index : null;
  const specName = typeof item.spec_name === 'string' ? item.spec_name : null;
  return {
    reason,
    value: render(item.value),
    spec: specLabel(specIndex, specName),
    message: typeof item.message === 'string' ? item.message : null,
    specIndex,
    specName,
    dropped: isDrop({ code: reason } as BuildReportEntry),
    specDropped: dropsSpec({ code: reason } as BuildReportEntry),
  };
}

function toSubagent(value: unknown): ResolvedSubagentView | null {
  const item = record(value);
  if (!item || typeof item.name !== 'string') return null;
  return {
    name: item.name,
    tools: Array.isArray(item.tools)
      ? item.tools.filter((tool): tool is string => typeof tool === 'string')
      : [],
    model: typeof item.model === 'string' ? item.model : '',
    source: item.source === 'builtin' ? 'builtin' : 'inline',
    spec_index: typeof item.spec_index === 'number' ? item.spec_index : null,
    ...(typeof item.replaces_dropped_spec_index === 'number'
      ? { replaces_dropped_spec_index: item.replaces_dropped_spec_index }
      : {}),
  };
}

/**
 * Reads the server's build report, `{report: [{code, spec_index, spec_name?, value, message}], subagents:
 * [{name, tools, source, spec_index, …}]}`, or the bare entry list of a create/update response.
 */
export function normaliseBuildReport(body: unknown): NormalisedReport {
  const top = record(body);
  const entries: unknown[] = Array.isArray(body) ? body : Array.isArray(top?.report) ? top.report : [];
  const rawSubagents = top?.subagents;
  const subagents = Array.isArray(rawSubagents)
    ? rawSubagents.map(toSubagent).filter((item): item is ResolvedSubagentView => item !== null)
    : null;
  return {
    warnings: entries.map(toWarning),
    resolved: subagents === null ? null : subagents.map((subagent) => subagent.name),
    subagents,
  };
}

/** Client-side check before asking the server: the textarea must hold a JSON array. */
export function parseSpecsText(text: string): { specs: unknown[] | undefined; error: string | null } {
  if (text.trim() === '') return { specs: undefined, error: null };
  try {
    const parsed: unknown = JSON.parse(text);
    if (!Array.isArray(parsed))
      return { specs: undefined, error: 'subagent_specs must be a JSON array of specs' };
    return { specs: parsed, error: null };
  } catch (error) {
    return {
      specs: undefined,
      error: `Invalid JSON: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}
