import { beforeAll, describe, expect, it } from 'vitest';
import type { RunTrace } from '../runtime/runs/inspect/build-run-trace.js';
import type { TestContext, TestUser } from '../../test/helpers/http/create-test-context.js';
import { expectError, json } from '../../test/helpers/http/expect-error.js';
import {
  useRunExplorerSetup,
  type RunExplorerSetup,
} from '../../test/helpers/http/use-run-explorer-setup.js';

const setup = useRunExplorerSetup();
let ctx: TestContext;
let alice: TestUser;
let bob: TestUser;
let admin: TestUser;
let runs: RunExplorerSetup['runs'];

beforeAll(() => {
  ({ ctx, alice, bob, admin, runs } = setup());
});

describe('GET /api/agent/runs/{id}/trace', () => {
  it('answers the whole tree from any node, with spans from stored events and totals per subtree', async () => {
    const { trace } = await json<{ trace: RunTrace }>(
      await ctx.request('GET', `/api/agent/runs/${runs.child.id}/trace`, { token: alice.token }),
      200,
    );
    expect(trace.root_run_id).toBe(runs.root.id);
    expect(trace.run_id).toBe(runs.child.id);
    expect(trace.nodes.map((node) => [node.run.id, node.parent_run_id])).toEqual([
      [runs.root.id, null],
      [runs.child.id, runs.root.id],
      [runs.delegation.id, runs.root.id],
    ]);
    const [root, child] = trace.nodes;
    expect(root?.child_run_ids).toEqual([runs.child.id, runs.delegation.id]);
    expect(root?.timeline.spans.map((span) => [span.kind, span.name, span.status])).toEqual([
      ['model', 'scripted:test', 'done'],
      ['tool', 'task', 'done'],
    ]);
    expect(child?.display_name).toBe('scout');
    expect(child?.timeline.last_seq).toBe(3);
    expect(child?.timeline.spans[0]?.usage).toEqual({ input_tokens: 7, output_tokens: 3 });
    expect(root?.totals).toEqual({
      own: { input_tokens: 0, output_tokens: 0, total_tokens: 0, model_calls: 0, aborted_model_calls: 0 },
      children: {
        input_tokens: 11,
        output_tokens: 4,
        total_tokens: 15,
        model_calls: 2,
        aborted_model_calls: 0,
      },
      subtree: {
        input_tokens: 11,
        output_tokens: 4,
        total_tokens: 15,
        model_calls: 2,
        aborted_model_calls: 0,
      },
    });
  });

  it('is run_not_found for another member and for an unknown run, and open to an admin', async () => {
    await expectError(
      await ctx.request('GET', `/api/agent/runs/${runs.child.id}/trace`, { token: bob.token }),
      404,
      'run_not_found',
    );
    await expectError(
      await ctx.request('GET', '/api/agent/runs/nope/trace', { token: alice.token }),
      404,
      'run_not_found',
    );
    const { trace } = await json<{ trace: RunTrace }>(
      await ctx.request('GET', `/api/agent/runs/${runs.root.id}/trace`, { token: admin.token }),
      200,
    );
    expect(trace.nodes).toHaveLength(3);
  });
});
