import { TroupeError } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import { DEFAULT_CONVERSATION_TITLE } from '../../core/conversations/conversation-title.js';
import type { ConversationPatch, Storage } from '../../core/ports/storage.js';
import type { Conversation } from '../../core/records/conversation.js';
import type { ThreadMessage } from '../../core/records/thread-message.js';
import type { Actor } from '../../core/records/user.js';
import type { AgentService } from '../agents/agent-service.js';
import type { ProjectService } from '../projects/project-service.js';
import { getReadableConversation } from './readable-conversation.js';

const MAX_TITLE_LENGTH = 500;

export interface CreateConversationInput {
  /** Agent id or slug. */
  agent_id: string;
  /** Defaults to the actor's "Default" project. */
  project_id?: string;
  title?: string;
}

/** The statuses a user can list and switch between; `subagent`/`delegation` belong to the runtime. */
export type UserConversationStatus = 'active' | 'archived';

export interface ConversationPatchInput {
  title?: string;
  status?: UserConversationStatus;
}

export interface ConversationService {
  create(actor: Actor, input: CreateConversationInput): Promise<Conversation>;
  /**
   * The actor's own conversations, newest first; with `query`, those whose title contains it (ignoring
   * case and runs of whitespace).
   */
  list(actor: Actor, status?: UserConversationStatus, query?: string): Promise<Conversation[]>;
  /** Owner or admin; anything else is `conversation_not_found`. */
  get(actor: Actor, conversationId: string): Promise<Conversation>;
  patch(actor: Actor, conversationId: string, input: ConversationPatchInput): Promise<Conversation>;
  messages(actor: Actor, conversationId: string): Promise<ThreadMessage[]>;
}

export interface ConversationServiceDependencies {
  storage: Storage;
  agents: AgentService;
  projects: ProjectService;
}

function checkTitle(title: string): string {
  const trimmed = title.trim();
  if (trimmed === '' || trimmed.length > MAX_TITLE_LENGTH) {
    throw new TroupeError('validation_failed', `A title must be 1 to ${MAX_TITLE_LENGTH} characters`);
  }
  return trimmed;
}

/** What a title search compares: lower case, one space for any run of whitespace. */
function searchForm(text: string): string {
  return text.normalize('NFKC').toLocaleLowerCase('en').replace(/\s+/g, ' ').trim();
}

export function createConversationService(
  dependencies: ConversationServiceDependencies,
): ConversationService {
  const { storage, agents, projects } = dependencies;

  const get = (actor: Actor, conversationId: string): Promise<Conversation> =>
    getReadableConversation(storage, actor, conversationId);

  return {
    async create(actor, input) {
      const title = input.title === undefined ? DEFAULT_CONVERSATION_TITLE : checkTitle(input.title);
      const agent = await agents.get(actor, input.agent_id);
      if (agent.is_subagent) {
        throw new TroupeError(
          'agent_not_chattable',
          `Agent "${agent.slug}" is a subagent; only a main agent can hand it work`,
        );
      }
      const project =
        input.project_id === undefined
          ? await projects.defaultProject(actor)
          : await projects.getOwned(actor, input.project_id);
      return storage.conversations.create({
        user_id: actor.id,
        agent_id: agent.id,
        thread_id: newId('thr'),
        project_id: project.id,
        status: 'active',
        title,
        metadata: {},
      });
    },

    async list(actor, status = 'active', query) {
      const conversations = await storage.conversations.listForUser(actor.id, [status]);
      const needle = query === undefined ? '' : searchForm(query);
      // Filtered here rather than in SQL: the list is read whole anyway, and both engines then fold case
      // the same way (SQLite's lower() knows ASCII only).
      return needle === ''
        ? conversations
        : conversations.filter((item) => searchForm(item.title).includes(needle));
    },

    get,

    async patch(actor, conversationId, input) {
      const conversation = await get(actor, conversationId);
      const patch: ConversationPatch = {};
      if (input.title !== undefined) patch.title = checkTitle(input.title);
      if (input.status !== undefined && input.status !== conversation.status) {
        // Child conversations carry their kind in the status; archiving one would lose it for good.
        if (conversation.status !== 'active' && conversation.status !== 'archived') {
          throw new TroupeError(
            'validation_failed',
            `A ${conversation.status} conversation cannot be archived or restored`,
          );
        }
        patch.status = input.status;
      }
      if (Object.keys(patch).length === 0) return conversation;
      return storage.conversations.update(conversation.id, patch);
    },

    async messages(actor, conversationId) {
      const conversation = await get(actor, conversationId);
      return storage.messages.list(conversation.thread_id);
    },
  };
}
