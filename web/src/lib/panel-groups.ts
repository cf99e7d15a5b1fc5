import { isTerminalStatus, type Run } from '../api/types.ts';
import type { PanelEntry } from './subagent-panel.ts';

export function entryName(entry: Pick<PanelEntry, 'name' | 'slug' | 'kind'>): string {
  return entry.name ?? entry.slug ?? (entry.kind === 'delegation' ? 'Expert' : 'Subagent');
}

/**
 * A label per card that no other card shares: the name, numbered in creation order ("Researcher #2") when
 * the same subagent ran more than once, so screen readers and tests can tell the cards apart.
 */
export function entryLabels(entries: readonly PanelEntry[]): Map<string, string> {
  const totals = new Map<string, number>();
  for (const entry of entries) totals.set(entryName(entry), (totals.get(entryName(entry)) ?? 0) + 1);
  const seen = new Map<string, number>();
  const labels = new Map<string, string>();
  for (const entry of entries) {
    const name = entryName(entry);
    const index = (seen.get(name) ?? 0) + 1;
    seen.set(name, index);
    labels.set(entry.run_id, (totals.get(name) ?? 0) > 1 ? `${name} #${index}` : name);
  }
  return labels;
}

/** The children one turn (one run of the conversation) started. */
export interface PanelGroup {
  key: string;
  parentRunId: string | null;
  /** 1 for the conversation's first run; null when the run is not known. */
  turn: number | null;
  /** The turn's input message. */
  input: string | null;
  entries: PanelEntry[];
  /** A child or the turn's own run is still active: shown open. */
  active: boolean;
}

/**
 * Cards grouped by the turn that started them, newest turn first, children oldest first inside a turn.
 * `runs` are the conversation's runs (any order); without them turns are still grouped, just not numbered.
 */
export function groupByTurn(entries: readonly PanelEntry[], runs: readonly Run[] = []): PanelGroup[] {
  const ordered = [...runs].sort(
    (a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id),
  );
  const turnOf = new Map(ordered.map((run, index) => [run.id, { run, turn: index + 1 }]));
  const groups = new Map<string, PanelGroup & { firstSeen: string }>();
  for (const entry of entries) {
    const key = entry.parent_run_id ?? 'unknown';
    let group = groups.get(key);
    if (!group) {
      const known = entry.parent_run_id === null ? undefined : turnOf.get(entry.parent_run_id);
      group = {
        key,
        parentRunId: entry.parent_run_id,
        turn: known?.turn ?? null,
        input: known?.run.input.message ?? null,
        entries: [],
        active: known !== undefined && !isTerminalStatus(known.run.status),
        firstSeen: known?.run.created_at ?? entry.created_at ?? '',
      };
      groups.set(key, group);
    }
    group.entries.push(entry);
    if (!isTerminalStatus(entry.status)) group.active = true;
  }
  return [...groups.values()]
    .sort((a, b) => (b.turn ?? 0) - (a.turn ?? 0) || b.firstSeen.localeCompare(a.firstSeen))
    .map(({ firstSeen: _firstSeen, ...group }) => group);
}

export interface PanelTotals {
  runs: number;
  active: number;
  total_tokens: number;
  model_calls: number;
}

/** The totals row: tokens and model calls of every card that reported usage. */
export function panelTotals(entries: readonly PanelEntry[]): PanelTotals {
  const totals: PanelTotals = { runs: entries.length, active: 0, total_tokens: 0, model_calls: 0 };
  for (const entry of entries) {
    if (!isTerminalStatus(entry.status)) totals.active += 1;
    totals.total_tokens += entry.usage?.total_tokens ?? 0;
    // Every call, answered or aborted, as each card counts it (docs/usage.md).
    totals.model_calls += (entry.usage?.model_calls ?? 0) + (entry.usage?.aborted_model_calls ?? 0);
  }
  return totals;
}
