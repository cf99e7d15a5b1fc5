import {
  RUN_STATUSES,
  RUN_VERDICTS,
  type RunListQuery,
  type RunStatus,
  type RunVerdict,
} from '../api/types.ts';

export const RUN_KINDS = ['chat', 'subagent', 'delegation'] as const;
export type RunKind = (typeof RUN_KINDS)[number];

/** The runs explorer's filters, as the form edits them and the address bar keeps them. */
export interface RunFilters {
  status: RunStatus[];
  kind: RunKind[];
  agent: string;
  conversation_id: string;
  user_id: string;
  /** ISO instants, or ''. */
  from: string;
  to: string;
  q: string;
  /** Only runs forks started. */
  forked: boolean;
  /** Only child runs judged with one of these verdicts. */
  verdict: RunVerdict[];
}

export const EMPTY_FILTERS: RunFilters = {
  status: [],
  kind: [],
  agent: '',
  conversation_id: '',
  user_id: '',
  from: '',
  to: '',
  q: '',
  forked: false,
  verdict: [],
};

const TEXT_KEYS = ['agent', 'conversation_id', 'user_id', 'from', 'to', 'q'] as const;

function listOf<T extends string>(raw: string | null, allowed: readonly T[]): T[] {
  if (raw === null) return [];
  return raw
    .split(',')
    .map((part) => part.trim())
    .filter((part): part is T => (allowed as readonly string[]).includes(part));
}

/** Unknown values are dropped rather than sent: a stale link still opens, with the filters that make sense. */
export function filtersFromSearch(search: string): RunFilters {
  const params = new URLSearchParams(search);
  const filters: RunFilters = {
    ...EMPTY_FILTERS,
    status: listOf(params.get('status'), RUN_STATUSES),
    kind: listOf(params.get('kind'), RUN_KINDS),
    verdict: listOf(params.get('verdict'), RUN_VERDICTS),
    forked: params.get('forked') === 'true',
  };
  for (const key of TEXT_KEYS) filters[key] = params.get(key)?.trim() ?? '';
  for (const key of ['from', 'to'] as const) {
    if (filters[key] !== '' && Number.isNaN(Date.parse(filters[key]))) filters[key] = '';
  }
  return filters;
}

/** `?status=failed,running&q=…` (empty filters left out), or '' when nothing is filtered. */
export function searchFromFilters(filters: RunFilters): string {
  const params = new URLSearchParams();
  if (filters.status.length > 0) params.set('status', filters.status.join(','));
  if (filters.kind.length > 0) params.set('kind', filters.kind.join(','));
  if (filters.verdict.length > 0) params.set('verdict', filters.verdict.join(','));
  for (const key of TEXT_KEYS) if (filters[key].trim() !== '') params.set(key, filters[key].trim());
  if (filters.forked) params.set('forked', 'true');
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

export function queryFromFilters(filters: RunFilters, cursor?: string, limit = 25): RunListQuery {
  const query: RunListQuery = { limit };
  if (filters.status.length > 0) query.status = filters.status;
  if (filters.kind.length > 0) query.kind = filters.kind;
  if (filters.verdict.length > 0) query.verdict = filters.verdict;
  for (const key of TEXT_KEYS) if (filters[key].trim() !== '') query[key] = filters[key].trim();
  if (filters.forked) query.forked = true;
  if (cursor !== undefined) query.cursor = cursor;
  return query;
}

export function activeFilterCount(filters: RunFilters): number {
  return (
    (filters.status.length > 0 ? 1 : 0) +
    (filters.kind.length > 0 ? 1 : 0) +
    (filters.verdict.length > 0 ? 1 : 0) +
    (filters.forked ? 1 : 0) +
    TEXT_KEYS.filter((key) => filters[key] !== '').length
  );
}

const pad = (value: number) => String(value).padStart(2, '0');

/** An ISO instant as a `datetime-local` value in the browser's time zone. */
export function toLocalInput(iso: string): string {
  if (iso === '') return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** A `datetime-local` value (local time) as an ISO instant; '' stays ''. */
export function fromLocalInput(local: string): string {
  if (local === '') return '';
  const date = new Date(local);
  return Number.isNaN(date.getTime()) ? '' : date.toISOString();
}
