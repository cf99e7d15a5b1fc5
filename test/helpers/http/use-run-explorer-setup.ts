import { afterAll, beforeAll } from 'vitest';
import { newId, newRunId } from '../../../src/core/ids.js';
import type { NewRun } from '../../../src/core/ports/storage.js';
import type { Conversation } from '../../../src/core/records/conversation.js';
import type { Run } from '../../../src/core/records/run.js';
import type { RunEventType } from '../../../src/core/records/run-event.js';
import { walkRunTo } from '../walk-run-to.js';
import { createTestContext, type TestContext, type TestUser } from './create-test-context.js';

export interface RunExplorerSetup {
  ctx: TestContext;
  alice: TestUser;
  bob: TestUser;
  admin: TestUser;
  conversation: Conversation;
  second: Conversation;
  /** Alice's tree (a running root with a completed subagent child and a failed delegation) and a later run. */
  runs: { root: Run; child: Run; delegation: Run; later: Run };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function runInput(where: Conversation, overrides: Partial<NewRun> = {}): NewRun {
  const id = overrides.id ?? newRunId();
  return {
    id,
    thread_id: newId('thr'),
    conversation_id: where.id,
    agent_id: where.agent_id,
    user_id: where.user_id,
    run_type: 'chat',
    source: 'test',
    channel: 'api',
    request_id: `req:${id}`,
    created_by_run_id: null,
    root_run_id: id,
    depth: 0,
    subagent_thread_relation_id: null,
    runtime_scope_id: `scope:${id}`,
    tool_approval_mode: 'default',
    model_spec: 'scripted:test',
    input: { message: 'hello' },
    ...overrides,
  };
}

async function createRunExplorerSetup(): Promise<RunExplorerSetup> {
  const ctx = await createTestContext();
  const alice = await ctx.createUser('alice');
  const bob = await ctx.createUser('bob');
  const admin = await ctx.createUser('root', 'admin');
  await ctx.agents.create(alice.user, { name: 'Main', slug: 'main', config: { model: 'scripted:test' } });
  const conversation = await ctx.conversations.create(alice.user, { agent_id: 'main' });
  const second = await ctx.conversations.create(alice.user, { agent_id: 'main' });
  const { storage } = ctx;
  const insert = async (input: NewRun) => {
    const run = await storage.runs.insert(input);
    await pause(3);
    return run;
  };
  const root = await insert(runInput(conversation, { input: { message: 'Plan the launch\n\nin detail' } }));
  const child = await insert(
    runInput(conversation, {
      run_type: 'subagent',
      created_by_run_id: root.id,
      root_run_id: root.id,
      depth: 1,
      input: { message: 'Research the launch date', inline_subagent: 'scout' },
    }),
  );
  const delegation = await insert(
    runInput(conversation, {
      run_type: 'delegation',
      created_by_run_id: root.id,
      root_run_id: root.id,
      depth: 1,
      input: { message: 'Ask the analyst' },
    }),
  );
  const later = await insert(runInput(second, { input: { message: 'Another question' } }));
  const event = (run: Run, type: RunEventType, payload: Record<string, unknown>) =>
    storage.events.append({ run_id: run.id, type, payload });
  await event(root, 'metadata', { model: 'scripted:test' });
  await event(root, 'tool_call', { step: 1, tool_call_id: 'c1', name: 'task', args: {} });
  await event(child, 'metadata', { model: 'scripted:test' });
  await event(child, 'step', { step: 1, tool_calls: 0, usage: { input_tokens: 7, output_tokens: 3 } });
  await event(child, 'end', { status: 'completed' });
  await event(root, 'tool_result', {
    step: 1,
    tool_call_id: 'c1',
    name: 'task',
    output: 'ok',
    is_error: false,
  });
  await walkRunTo(storage, child.id, 'completed', {
    started_at: '2030-01-01T00:00:00.000Z',
    finished_at: '2030-01-01T00:00:01.250Z',
    usage: { input_tokens: 7, output_tokens: 3, total_tokens: 10, model_calls: 1, aborted_model_calls: 0 },
  });
  await walkRunTo(storage, delegation.id, 'failed', {
    usage: { input_tokens: 4, output_tokens: 1, total_tokens: 5, model_calls: 1, aborted_model_calls: 0 },
  });
  await walkRunTo(storage, root.id, 'running', { started_at: new Date().toISOString() });
  const runs = {
    root: (await storage.runs.get(root.id)) as Run,
    child: (await storage.runs.get(child.id)) as Run,
    delegation: (await storage.runs.get(delegation.id)) as Run,
    later,
  };
  return { ctx, alice, bob, admin, conversation, second, runs };
}

/** Registers beforeAll/afterAll around the run explorer's stored runs; the accessor is valid inside tests. */
export function useRunExplorerSetup(): () => RunExplorerSetup {
  let setup: RunExplorerSetup | undefined;
  beforeAll(async () => {
    setup = await createRunExplorerSetup();
  });
  afterAll(async () => {
    await setup?.ctx.close();
  });
  return () => {
    if (!setup) throw new Error('the run explorer setup is not ready (use it inside tests)');
    return setup;
  };
}
