import type { Storage } from '../../core/ports/storage.js';
import type { AgentMiddleware } from '../../core/ports/agent-middleware.js';
import type { Conversation } from '../../core/records/conversation.js';
import type { MiddlewareFactory } from '../middleware/middleware-factory.js';
import { sessionExtras } from './session-environment.js';

const SANDBOX_TOOL = 'execute';

/** The session a run belongs to: its conversation, or for a child run the conversation it was started from. */
async function sessionConversation(
  storage: Storage,
  conversation: Conversation,
): Promise<Conversation | undefined> {
  let current: Conversation | undefined = conversation;
  // Child conversations name their parent (subagents of subagents, delegations): climb to the top one.
  for (let depth = 0; current !== undefined && depth < 16; depth++) {
    const parent = current.metadata.parent_conversation_id;
    if (typeof parent !== 'string') return current;
    current = await storage.conversations.get(parent);
  }
  return current;
}

/**
 * A session created with `environment: {type: "none"}` runs without a sandbox (docs/interoperability.md#openai-agents-api):
 * `execute` is hidden from the model of every run of it, its subagents' included, and refused if called anyway.
 * Other runs are left alone, and a run without `execute` costs nothing here.
 */
export function createSessionSandboxMiddleware(storage: Storage): MiddlewareFactory {
  return async (setup): Promise<AgentMiddleware[]> => {
    if (!setup.tools.some((tool) => tool.name === SANDBOX_TOOL)) return [];
    const session = await sessionConversation(storage, setup.conversation);
    if (session === undefined || sessionExtras(session).environment?.type !== 'none') return [];
    return [
      {
        name: 'session-without-sandbox',
        wrapModelCall(request, next) {
          return next({ ...request, tools: request.tools.filter((tool) => tool.name !== SANDBOX_TOOL) });
        },
        async wrapToolCall(request, next) {
          if (request.toolName === SANDBOX_TOOL) {
            return {
              output: 'execute is not available: this session runs without a sandbox (environment "none")',
              isError: true,
            };
          }
          return next(request);
        },
      },
    ];
  };
}
