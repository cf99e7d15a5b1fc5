/** One line of the spec editor's live report: a dropped spec or tool, with why and what. */
export interface BuildWarning {
  reason: string;
  value: string;
  /** The spec it belongs to (name or index), when the server says. */
  spec: string | null;
  message: string | null;
}

export interface NormalisedReport {
  warnings: BuildWarning[];
  /** Names of the inline subagents that survived, when the server lists them. */
  resolved: string[] | null;
}

const REASON_KEYS = ['reason', 'code', 'reason_code', 'rule', 'type'];
const VALUE_KEYS = ['value', 'offending_value', 'offending', 'tool', 'name', 'pattern', 'input'];
const SPEC_KEYS = ['spec', 'spec_name', 'subagent', 'index', 'spec_index', 'path'];

function pick(record: Record<string, unknown>, keys: readonly string[]): unknown {
  for (const key of keys) if (record[key] !== undefined && record[key] !== null) return record[key];
  return undefined;
}

function render(value: unknown): string {
  if (value === undefined) return '';
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return Object.prototype.toString.call(value);
  }
}

function toWarning(entry: unknown): BuildWarning {
  if (typeof entry === 'string') return { reason: 'warning', value: entry, spec: null, message: null };
  if (typeof entry !== 'object' || entry === null)
    return { reason: 'warning', value: render(entry), spec: null, message: null };
  const record = entry as Record<string, unknown>;
  const spec = pick(record, SPEC_KEYS);
  const message = record.message;
  return {
    reason: render(pick(record, REASON_KEYS) ?? 'warning'),
    value: render(pick(record, VALUE_KEYS)),
    spec: spec === undefined ? null : render(spec),
    message: typeof message === 'string' ? message : null,
  };
}

function listIn(record: Record<string, unknown>): unknown[] | undefined {
  for (const key of ['warnings', 'dropped', 'entries', 'issues', 'report']) {
    if (Array.isArray(record[key])) return record[key] as unknown[];
  }
  return undefined;
}

/**
 * Reads the build report: the server's `{report: [{code, spec_index, spec_name?, value, message}],
 * subagents: [{name, …}]}` (also the bare `warnings` list of a create/update response), and tolerates a few
 * other plausible shapes, so the panel keeps working if the field names move.
 */
export function normaliseBuildReport(body: unknown): NormalisedReport {
  let node: unknown = body;
  let survivors: unknown;
  if (node && typeof node === 'object' && !Array.isArray(node)) {
    const record = node as Record<string, unknown>;
    survivors = record.resolved ?? record.subagents;
    node = record.report ?? record.build_report ?? record;
  }
  let list: unknown[] = [];
  if (Array.isArray(node)) list = node;
  else if (node && typeof node === 'object') {
    const record = node as Record<string, unknown>;
    list = listIn(record) ?? [];
    survivors = record.resolved ?? record.subagents ?? survivors;
  }
  const resolved = Array.isArray(survivors)
    ? survivors.map((item) =>
        typeof item === 'object' && item !== null && 'name' in item
          ? render((item as { name: unknown }).name)
          : render(item),
      )
    : null;
  return { warnings: list.map(toWarning), resolved };
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
