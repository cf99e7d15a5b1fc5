import { TaskState, type ListTasksRequest, type ListTasksResponse } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import type { Run, ToolApproval } from '../../core/records/run.js';
import { toTaskState } from './a2a-task-state.js';
import { runToTask } from './run-to-a2a-task.js';

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 100;

export interface ListedRun {
  run: Run;
  pending: ToolApproval[];
}

interface Cursor {
  at: string;
  id: string;
}

/** When the task's status last changed: what A2A sorts and filters by. */
function statusTime(run: Run): string {
  return run.finished_at ?? run.updated_at;
}

/** Newest status first; the id breaks ties so pages never skip or repeat a task. */
function compare(a: Cursor, b: Cursor): number {
  const byTime = Date.parse(b.at) - Date.parse(a.at);
  return byTime !== 0 ? byTime : b.id.localeCompare(a.id);
}

function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify([cursor.at, cursor.id]), 'utf8').toString('base64url');
}

function decodeCursor(token: string): Cursor {
  try {
    const value: unknown = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    if (
      Array.isArray(value) &&
      typeof value[0] === 'string' &&
      typeof value[1] === 'string' &&
      !Number.isNaN(Date.parse(value[0]))
    ) {
      return { at: value[0], id: value[1] };
    }
  } catch {
    // Falls through to the one answer for every bad token.
  }
  throw new RequestMalformedError('pageToken is not a token this server issued');
}

function pageSizeOf(request: ListTasksRequest): number {
  const size = request.pageSize ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(size) || size < 1 || size > MAX_PAGE_SIZE) {
    throw new RequestMalformedError(`pageSize must be an integer from 1 to ${MAX_PAGE_SIZE}`);
  }
  return size;
}

/**
 * `ListTasks` over the caller's runs (already scoped by the caller): filtered by state and status time,
 * newest status first, paged with an opaque cursor of the last task's (status time, id).
 */
export function pageTasks(runs: readonly ListedRun[], request: ListTasksRequest): ListTasksResponse {
  const pageSize = pageSizeOf(request);
  const after = request.pageToken ? decodeCursor(request.pageToken) : undefined;
  const since =
    request.statusTimestampAfter === undefined ? undefined : Date.parse(request.statusTimestampAfter);
  if (since !== undefined && Number.isNaN(since))
    throw new RequestMalformedError('statusTimestampAfter is not a timestamp');
  if (request.status === TaskState.UNRECOGNIZED)
    throw new RequestMalformedError('status is not a task state');
  const wanted = request.status === TaskState.TASK_STATE_UNSPECIFIED ? undefined : request.status;
  const matching = runs
    .filter(
      ({ run, pending }) => wanted === undefined || toTaskState(run.status, pending.length > 0) === wanted,
    )
    .filter(({ run }) => since === undefined || Date.parse(statusTime(run)) >= since)
    .sort((a, b) =>
      compare({ at: statusTime(a.run), id: a.run.id }, { at: statusTime(b.run), id: b.run.id }),
    );
  const start =
    after === undefined
      ? 0
      : matching.findIndex(({ run }) => compare(after, { at: statusTime(run), id: run.id }) < 0);
  const rest = start < 0 ? [] : matching.slice(start);
  const page = rest.slice(0, pageSize);
  const last = page.at(-1);
  return {
    // Artifacts only when asked for (A2A 1.0: they are left out by default to keep pages small).
    tasks: page.map(({ run, pending }) =>
      runToTask(run, pending, {
        historyLength: request.historyLength,
        withoutArtifacts: request.includeArtifacts !== true,
      }),
    ),
    nextPageToken:
      rest.length > pageSize && last ? encodeCursor({ at: statusTime(last.run), id: last.run.id }) : '',
    pageSize,
    totalSize: matching.length,
  };
}
