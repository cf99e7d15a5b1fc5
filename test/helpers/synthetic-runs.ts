import { newId, newRunId } from '../../src/core/ids.js';
import type { NewRun } from '../../src/core/ports/storage.js';
import type { Conversation } from '../../src/core/records/conversation.js';
import type { Run, TokenUsage } from '../../src/core/records/run.js';
import type { RunEventType } from '../../src/core/records/run-event.js';
import { publishQuietly } from '../../src/runtime/events/publish-quietly.js';
import { walkRunTo } from './walk-run-to.js';
import type { TestServer } from './start-test-server.js';

/**
 * Runs written straight into storage, their events appended and published as a worker would. A run set
 * `running` is owned by a fake worker with a far lease, so neither the executor nor the reconciler touches
 * it: the test alone moves it, event by event.
 */
export const FAKE_LEASE = {
  worker_id: 'wrk_fake_console_test',
  lease_expires_at: '2999-01-01T00:00:00.000Z',
};

export const USAGE_52: TokenUsage = {
  input_tokens: 40,
  output_tokens: 12,
  total_tokens: 52,
  model_calls: 1,
  aborted_model_calls: 0,
};

export interface SyntheticChild {
  run: Run;
  thread: string;
  conversation: Conversation;
  slug: string;
  name: string;
  kind: 'subagent' | 'delegation';
  task: string;
  toolCallId: string;
}

export function syntheticRuns(server: TestServer) {
  const { storage, bus } = server.troupe;

  async function conversationOf(conversationId: string): Promise<Conversation> {
    const conversation = await storage.conversations.get(conversationId);
    if (!conversation) throw new Error(`no conversation ${conversationId}`);
    return conversation;
  }

  function base(conversation: Conversation, id: string, overrides: Partial<NewRun>): NewRun {
    return {
      id,
      thread_id: conversation.thread_id,
      conversation_id: conversation.id,
      agent_id: conversation.agent_id,
      user_id: conversation.user_id,
      run_type: 'chat',
      source: 'console-e2e',
      channel: 'internal',
      request_id: `req:${id}`,
      created_by_run_id: null,
      root_run_id: id,
      depth: 0,
      subagent_thread_relation_id: null,
      runtime_scope_id: conversation.thread_id,
      tool_approval_mode: 'default',
      model_spec: 'scripted:demo',
      input: { message: 'synthetic' },
      ...overrides,
    };
  }

  /** A root chat run of the conversation, with its user message; `running` unless told otherwise. */
  async function parent(
    conversationId: string,
    message: string,
    status: Run['status'] = 'running',
  ): Promise<Run> {
    const conversation = await conversationOf(conversationId);
    const id = newRunId();
    await storage.runs.insert(base(conversation, id, { input: { message } }));
    await storage.messages.append(conversation.thread_id, id, 0, [{ role: 'user', content: message }]);
    return setStatus(id, status);
  }

  /** A subagent or delegation run of `creator`, in a child conversation of its own (as the runtime makes). */
  async function child(
    creator: Run,
    options: { slug: string; kind: 'subagent' | 'delegation'; task: string; toolCallId?: string },
  ): Promise<SyntheticChild> {
    const conversation = await conversationOf(creator.conversation_id);
    const agent = await storage.agents.getBySlug(options.slug);
    if (!agent) throw new Error(`no agent ${options.slug}`);
    const thread = newId('thr');
    const toolCallId = options.toolCallId ?? `call_${newId('wrk').slice(4)}`;
    const childConversation = await storage.conversations.create({
      user_id: conversation.user_id,
      agent_id: agent.id,
      thread_id: thread,
      project_id: conversation.project_id,
      status: options.kind,
      title: `SubAgent: ${options.slug}`,
      metadata: { parent_conversation_id: conversation.id },
    });
    if (options.kind === 'subagent') {
      await storage.subagentThreads.create({
        user_id: conversation.user_id,
        parent_conversation_id: conversation.id,
        child_conversation_id: childConversation.id,
        child_thread_id: thread,
        subagent_slug: options.slug,
        created_by_run_id: creator.id,
      });
    }
    const id = newRunId();
    const run = await storage.runs.insert(
      base(childConversation, id, {
        thread_id: thread,
        agent_id: agent.id,
        run_type: options.kind,
        created_by_run_id: creator.id,
        root_run_id: creator.root_run_id,
        depth: creator.depth + 1,
        runtime_scope_id: thread,
        model_spec: `scripted:${options.slug}`,
        input: { message: options.task, parent_tool_call_id: toolCallId },
      }),
    );
    await storage.messages.append(thread, id, 0, [{ role: 'user', content: options.task }]);
    return {
      run,
      thread,
      conversation: childConversation,
      slug: options.slug,
      name: agent.name,
      kind: options.kind,
      task: options.task,
      toolCallId,
    };
  }

  /** Moves a run's stored status (with the timestamps and lease a worker would set). */
  async function setStatus(runId: string, status: Run['status'], extra: Partial<Run> = {}): Promise<Run> {
    const now = new Date().toISOString();
    const { status: _ignored, ...patch } = extra;
    if (status === 'running') Object.assign(patch, { started_at: extra.started_at ?? now, ...FAKE_LEASE });
    if (['completed', 'failed', 'cancelled', 'interrupted'].includes(status)) {
      Object.assign(patch, {
        finished_at: extra.finished_at ?? now,
        worker_id: null,
        lease_expires_at: null,
      });
    }
    return walkRunTo(storage, runId, status, patch);
  }

  /** Appends and publishes one event of a run (lineage fields included, as the emitter adds them). */
  async function emit(run: Run, type: RunEventType, payload: Record<string, unknown>) {
    const event = await storage.events.append({
      run_id: run.id,
      type,
      payload: {
        root_run_id: run.root_run_id,
        parent_run_id: run.created_by_run_id,
        parent_tool_call_id: run.input.parent_tool_call_id ?? null,
        depth: run.depth,
        ...payload,
      },
    });
    await publishQuietly(bus, event);
    return event;
  }

  /** The child's status change as its parent's stream carries it (`subagent_update`). */
  async function update(
    parentRun: Run,
    which: SyntheticChild,
    status: Run['status'],
    extra: Record<string, unknown> = {},
  ) {
    await emit(parentRun, 'subagent_update', {
      run_id: which.run.id,
      kind: which.kind,
      slug: which.slug,
      name: which.name,
      status,
      child_thread_id: which.thread,
      child_conversation_id: which.conversation.id,
      parent_tool_call_id: which.toolCallId,
      description: which.task,
      error: null,
      output: null,
      ...extra,
    });
  }

  return { storage, parent, child, setStatus, emit, update };
}
