import { newRunId } from '../../../src/core/ids.js';
import type { NewRun } from '../../../src/core/ports/storage.js';
import type { Conversation } from '../../../src/core/records/conversation.js';

/** The contract suites' root run: on the conversation's thread, its own request id, unless overridden. */
export function contractRunInput(
  conversation: Pick<Conversation, 'id' | 'thread_id' | 'agent_id' | 'user_id'>,
  overrides: Partial<NewRun> = {},
): NewRun {
  const id = overrides.id ?? newRunId();
  return {
    id,
    thread_id: conversation.thread_id,
    conversation_id: conversation.id,
    agent_id: conversation.agent_id,
    user_id: conversation.user_id,
    run_type: 'chat',
    source: 'contract-test',
    channel: 'api',
    request_id: `req:${id}`,
    created_by_run_id: null,
    root_run_id: id,
    depth: 0,
    subagent_thread_relation_id: null,
    runtime_scope_id: `scope:${id}`,
    tool_approval_mode: 'default',
    model_spec: 'scripted:contract',
    input: { message: 'hello' },
    ...overrides,
  };
}
