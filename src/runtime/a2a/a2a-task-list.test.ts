import { ListTasksRequest, TaskState } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import { describe, expect, it } from 'vitest';
import type { RunStatus } from '../../core/records/run.js';
import { pageTasks, type ListedRun } from './a2a-task-list.js';
import { fakeRun } from '../../../test/helpers/a2a/fake-run.js';

function listed(id: string, at: string, status: RunStatus = 'completed'): ListedRun {
  return {
    run: fakeRun({ id, status, finished_at: status === 'running' ? null : at, updated_at: at }),
    pending: [],
  };
}

const request = (fields: Record<string, unknown> = {}) => ListTasksRequest.fromJSON(fields);

// Two tasks share a timestamp: the id must order them, or a page boundary between them would lose one.
const RUNS = [
  listed('a', '2030-01-01T00:00:01.000Z'),
  listed('b', '2030-01-01T00:00:03.000Z'),
  listed('c', '2030-01-01T00:00:03.000Z'),
  listed('d', '2030-01-01T00:00:02.000Z', 'running'),
  listed('e', '2030-01-01T00:00:04.000Z', 'failed'),
];

describe('pageTasks', () => {
  it('orders by status time, newest first, and pages without skipping or repeating', () => {
    const all = pageTasks(RUNS, request());
    expect(all.tasks.map((task) => task.id)).toEqual(['e', 'c', 'b', 'd', 'a']);
    expect(all).toMatchObject({ nextPageToken: '', pageSize: 50, totalSize: 5 });
    const seen: string[] = [];
    let token = '';
    do {
      const page = pageTasks(RUNS, request({ pageSize: 2, pageToken: token }));
      seen.push(...page.tasks.map((task) => task.id));
      token = page.nextPageToken;
    } while (token !== '');
    expect(seen).toEqual(['e', 'c', 'b', 'd', 'a']);
  });

  it('filters by state and by status time', () => {
    expect(pageTasks(RUNS, request({ status: 'TASK_STATE_WORKING' })).tasks.map((task) => task.id)).toEqual([
      'd',
    ]);
    const since = pageTasks(RUNS, request({ statusTimestampAfter: '2030-01-01T00:00:03.000Z' }));
    expect(since.tasks.map((task) => task.id)).toEqual(['e', 'c', 'b']);
    expect(pageTasks(RUNS, request({ status: TaskState.TASK_STATE_COMPLETED })).totalSize).toBe(3);
  });

  it('refuses page sizes out of 1..100, forged tokens and unknown states', () => {
    for (const fields of [
      { pageSize: 0 },
      { pageSize: 101 },
      { pageToken: 'forged' },
      { status: 'TASK_STATE_NOPE' },
    ]) {
      expect(() => pageTasks(RUNS, request(fields))).toThrow(RequestMalformedError);
    }
  });
});
