import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Run } from '../../../core/records/run.js';
import type { User } from '../../../core/records/user.js';
import {
  createRuntimeHarness,
  type RuntimeHarness,
} from '../../../../test/helpers/create-runtime-harness.js';
import { toolResults } from '../../../../test/helpers/run-helpers.js';
import type { AgentMiddleware } from '../../../core/ports/agent-middleware.js';
import { ApprovalPendingError } from '../../../core/approvals/approval-pending-error.js';
import { rejectedCall } from '../../../core/approvals/rejected-call.js';

/**
 * A decision that lands while the run is still `running` — after its `approval_required` event, before the
 * worker committed `input_required` — must not leave the run parked forever. The interleaving is forced: a
 * middleware outside the approval guard decides the call the moment the guard says it waits, before the
 * loop returns and the executor parks the run.
 */

const MAIN = `
rules:
  - when: { contains: both }
    steps:
      - tool_calls:
          - { name: write_file, args: { path: a.txt, content: "A" } }
          - { name: write_file, args: { path: b.txt, content: "B" } }
      - text: "both: {{last_tool_result}}"
  - steps:
      - tool_calls: [{ name: write_file, args: { path: out.txt, content: "approved content" } }]
      - text: "written: {{last_tool_result}}"
`;

interface Decided {
  toolCallId: string;
  /** The run as the decision path saw it. */
  runStatus: Run['status'];
}

let harness: RuntimeHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** Decides, from inside the worker, the waiting calls `pick` chooses, before the run parks. */
function decideEarly(
  actor: () => User,
  pick: (input: unknown) => 'approve' | 'reject' | undefined,
  decided: Decided[],
): AgentMiddleware {
  return {
    name: 'decide-before-park',
    async wrapToolCall(request, next) {
      try {
        return await next(request);
      } catch (error) {
        const decision = pick(request.input);
        if (error instanceof ApprovalPendingError && decision) {
          const result = await harness?.runs.decideApproval(actor(), request.run.id, error.toolCallId, {
            decision,
          });
          if (result) decided.push({ toolCallId: error.toolCallId, runStatus: result.run.status });
        }
        throw error;
      }
    },
  };
}

async function setup(pick: (input: unknown) => 'approve' | 'reject' | undefined) {
  const decided: Decided[] = [];
  const actor: { user?: User } = {};
  harness = await createRuntimeHarness({
    scenarios: { main: MAIN },
    // Only the first attempt decides: the resumed run finds the calls decided and never waits again.
    middleware: () => Promise.resolve([decideEarly(() => actor.user as User, pick, decided)]),
  });
  const user = await harness.createUser('alice');
  actor.user = user;
  const agent = await harness.createAgent(user, 'main', {
    model: 'scripted:main',
    tools: ['write_file'],
    tool_approval_mode: 'default',
  });
  const conversation = await harness.createConversation(user, agent);
  const workdir = (await harness.storage.projects.get(conversation.project_id))?.workdir ?? '';
  return { h: harness, user, conversation, decided, workdir };
}

async function settle(h: RuntimeHarness, user: User, runId: string): Promise<Run> {
  const awaited = await h.runs.await(user, runId, 20_000);
  expect(awaited.wait_timed_out).toBe(false);
  return awaited.run;
}

describe('a decision that lands before the run parked', () => {
  it('approved: the run does not stay input_required; it executes the call and completes', async () => {
    const { h, user, conversation, decided, workdir } = await setup(() => 'approve');
    const { run } = await h.runs.postMessage(user, conversation.id, { content: 'write it' });
    const done = await settle(h, user, run.id);
    expect(decided).toEqual([{ toolCallId: expect.any(String) as string, runStatus: 'running' }]);
    expect(done).toMatchObject({
      status: 'completed',
      output: expect.stringMatching(/^written: Created "out.txt"/) as string,
    });
    expect(readFileSync(path.join(workdir, 'out.txt'), 'utf8')).toBe('approved content');
    const [approval] = await h.runs.listApprovals(user, run.id);
    expect(approval).toMatchObject({ status: 'approved', tool_call_id: decided[0]?.toolCallId });
  });

  it('rejected: the model is told and the run completes', async () => {
    const { h, user, conversation, decided } = await setup(() => 'reject');
    const { run } = await h.runs.postMessage(user, conversation.id, { content: 'write it' });
    const done = await settle(h, user, run.id);
    expect(decided.map((entry) => entry.runStatus)).toEqual(['running']);
    expect(done.status).toBe('completed');
    const thread = await h.storage.messages.list(conversation.thread_id);
    expect(toolResults(thread, 'write_file')).toEqual([
      { name: 'write_file', text: rejectedCall('write_file', null).output, isError: true },
    ]);
  });

  it('one of two decided early: the run parks for the other, whose decision resumes it', async () => {
    const early = (input: unknown) => ((input as { path?: string }).path === 'a.txt' ? 'approve' : undefined);
    const { h, user, conversation, decided, workdir } = await setup(early);
    const { run } = await h.runs.postMessage(user, conversation.id, { content: 'both' });
    await expect
      .poll(async () => (await h.storage.runs.get(run.id))?.status, { timeout: 15_000 })
      .toBe('input_required');
    expect(decided.map((entry) => entry.runStatus)).toEqual(['running']);
    const pending = (await h.runs.listApprovals(user, run.id)).filter(
      (approval) => approval.status === 'pending',
    );
    expect(pending.map((approval) => (approval.args as { path: string }).path)).toEqual(['b.txt']);
    await h.runs.decideApproval(user, run.id, pending[0]?.tool_call_id ?? '', { decision: 'approve' });
    expect((await settle(h, user, run.id)).status).toBe('completed');
    expect(readFileSync(path.join(workdir, 'a.txt'), 'utf8')).toBe('A');
    expect(readFileSync(path.join(workdir, 'b.txt'), 'utf8')).toBe('B');
  });
});
