import { beforeAll, describe, expect, it } from 'vitest';
import { DELEGATION_EXTENSION_URI } from '../../src/core/remote-experts/delegation-context.js';
import { a2aClient, asTask, userText } from '../helpers/a2a-client.js';
import { json, useRemoteExpertPair } from '../helpers/use-remote-expert-pair.js';
import type { TestServer } from '../helpers/start-test-server.js';

/**
 * Verified delegation to a remote A2A expert between two real Troupe servers on loopback
 * (docs/verified-delegation.md#remote-experts): the remote publishes its run's evidence in the task's metadata,
 * the delegating server's result carries it flagged `remote_reported`, its grader judges it, and a revision is a
 * follow-up in the same remote A2A context.
 */
const pair = useRemoteExpertPair();
const { cardOf, remoteRun, remoteTaskOf } = pair;
let local: TestServer;
let remote: TestServer;

interface Evidence {
  run_id: string;
  status: string;
  model_calls: number;
  tokens: { total: number };
  tool_calls_total: number;
  flags: string[];
  remote?: {
    task_id: string;
    context_id: string | null;
    state: string;
    artifacts: { artifact_id: string; name: string; chars: number }[];
    messages: number;
    reported_by: string;
  };
}
interface DelegateAnswer {
  status: string;
  run_id: string;
  output: string | null;
  evidence?: Evidence;
  verification?: { verdict: string; reasons: string[]; evidence: Evidence; revisions: number };
}

beforeAll(async () => {
  local = pair.local();
  remote = pair.remote();
  await json(
    await local.api('/api/agent', {
      method: 'POST',
      body: JSON.stringify({
        slug: 'remote-graded',
        name: 'Remote graded analyst',
        backend: 'a2a',
        status: 'published',
        config: {
          a2a: { card_url: cardOf('analyst'), headers: { authorization: `Bearer ${remote.token}` } },
          grader: { model: 'scripted:remote-grader', max_revisions: 1 },
        },
      }),
    }),
  );
});

async function delegate(body: object): Promise<DelegateAnswer> {
  return json<DelegateAnswer>(
    await local.api('/api/delegate?wait_ms=60000', { method: 'POST', body: JSON.stringify(body) }),
  );
}

describe('evidence of a remote expert', () => {
  it('the remote Troupe publishes its run evidence in the ended task metadata', async () => {
    const client = await a2aClient(`${remote.url}/a2a/analyst/`, remote.token);
    const task = asTask(await client.sendMessage(userText('Weigh the risks of a rewrite')));
    const metadata: Record<string, unknown> = task.metadata ?? {};
    const published = (metadata[DELEGATION_EXTENSION_URI] as { evidence?: Evidence } | undefined)?.evidence;
    const run = await remoteRun(task.id);
    expect(published).toMatchObject({
      run_id: run?.id,
      status: 'completed',
      model_calls: run?.usage?.model_calls,
      tool_calls_total: 0,
      flags: ['no_tool_calls'],
    });
  });

  it('a delegation result carries the remote-reported evidence: task state, artifacts, usage, flags', async () => {
    const answer = await delegate({
      expert: 'remote-analyst',
      task: 'Assess the risks of a new pricing page',
    });
    expect(answer.status).toBe('completed');
    const taskId = await remoteTaskOf(answer.run_id);
    const remoteTask = await remoteRun(taskId);
    const delegated = await local.troupe.storage.runs.get(answer.run_id);
    expect(answer.evidence).toMatchObject({
      run_id: answer.run_id,
      status: 'completed',
      model_calls: remoteTask?.usage?.model_calls,
      tokens: { total: delegated?.usage?.total_tokens },
      tool_calls_total: 0,
      // The remote's own flag (its analyst called no tool) beside the mark of where the facts come from.
      flags: ['remote_reported', 'no_tool_calls'],
      remote: {
        task_id: taskId,
        context_id: remoteTask?.conversation_id,
        state: 'TASK_STATE_COMPLETED',
        artifacts: [{ artifact_id: 'output', name: 'output', chars: remoteTask?.output?.length }],
        reported_by: 'troupe',
      },
    });
    expect(answer.evidence?.tokens.total).toBeGreaterThan(0);
    expect(answer.verification).toMatchObject({ verdict: 'unverified', reasons: [] });
  });
});

describe('evidence of a local expert, for comparison', () => {
  it('POST /api/delegate to a local expert answers the evidence of its own records, without remote facts', async () => {
    const answer = await delegate({ expert: 'analyst', task: 'Assess the risks of a rename' });
    expect(answer.status).toBe('completed');
    const run = await local.troupe.storage.runs.get(answer.run_id);
    expect(answer.evidence).toEqual({
      run_id: answer.run_id,
      status: 'completed',
      model_calls: run?.usage?.model_calls,
      tokens: {
        input: run?.usage?.input_tokens,
        output: run?.usage?.output_tokens,
        total: run?.usage?.total_tokens,
      },
      tool_calls: {},
      tool_calls_total: 0,
      tool_calls_failed: 0,
      files_written: [],
      artifacts: [],
      children: [],
      flags: ['no_tool_calls'],
    });
    expect(answer.verification).toEqual({
      verdict: 'unverified',
      reasons: [],
      evidence: answer.evidence,
      revisions: 0,
      grader_run_ids: [],
    });
  });
});

describe('acceptance criteria on a remote delegation', () => {
  it('the grader judges the remote evidence, and a revision is a follow-up in the same remote context', async () => {
    const answer = await delegate({
      expert: 'remote-graded',
      task: 'Assess the risks of dropping the free plan',
      acceptance: 'The biggest risk comes first.',
    });
    expect(answer.status).toBe('completed');
    expect(answer.verification).toMatchObject({
      verdict: 'satisfied',
      reasons: ['The revision answers the reviewer; the remote reported its run.'],
      revisions: 1,
    });
    expect(answer.verification?.evidence.flags).toContain('remote_reported');
    expect(answer.output).toContain('asks for a revision');
    // Both remote tasks live in one remote conversation: the revision continued the task's A2A context.
    const revisionRun = answer.run_id;
    const first = (await local.troupe.storage.verifications.getMany([revisionRun])).at(0);
    expect(first?.verdict).toBe('satisfied');
    const revisionTask = await remoteRun(await remoteTaskOf(revisionRun));
    const delegated = await local.troupe.storage.runs.get(revisionRun);
    const firstRunId = delegated?.input.revises_run_id;
    expect(typeof firstRunId).toBe('string');
    const firstTask = await remoteRun(await remoteTaskOf(String(firstRunId)));
    expect(revisionTask?.conversation_id).toBe(firstTask?.conversation_id);
    expect(revisionTask?.input.message).toContain('Name the biggest risk first; then the rest.');
    const needsRevision = await local.troupe.storage.verifications.get(String(firstRunId));
    expect(needsRevision?.verification.reasons).toEqual(['Name the biggest risk first; then the rest.']);
    expect(needsRevision?.verdict).toBe('needs_revision');
  });
});
