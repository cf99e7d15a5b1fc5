import { z } from 'zod';
import type { AppDependencies } from '../app-dependencies.js';
import { idParamsSchema } from '../id-params.js';
import type { RouteRegistry } from '../route-registry.js';
import { budgetSchema } from '../../runtime/budgets/budget-schema.js';
import { RESPONSES } from '../response-schemas/route-responses.js';

const userStatusSchema = z.enum(['active', 'archived']);

export const createConversationBodySchema = z
  .object({
    agent_id: z.string().min(1).max(200).describe('Agent id or slug; must be a main agent I can use'),
    project_id: z.string().min(1).max(200).optional().describe('Defaults to my "Default" project'),
    title: z.string().trim().min(1).max(500).optional(),
  })
  .strict();

export const patchConversationBodySchema = z
  .object({
    title: z.string().trim().min(1).max(500).optional(),
    status: userStatusSchema.optional().describe('"archived" hides it from the default list'),
  })
  .strict();

export const postMessageBodySchema = z
  .object({
    budget: budgetSchema
      .optional()
      .describe("Narrows the agent's config.budget for this run tree; a value above it is refused"),
    content: z
      .string()
      .min(1)
      .refine((content) => content.trim() !== '', 'content must not be blank'),
    request_id: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe(
        "Idempotency key, unique per user: a replay returns the same run; another user's equal key never conflicts",
      ),
    attachments: z
      .array(z.string().min(1).max(200))
      .max(50)
      .optional()
      .describe(
        'Ids of files attached to this conversation; the message tells the model their workdir paths',
      ),
  })
  .strict();

const listQuerySchema = z.object({
  status: userStatusSchema.default('active'),
  q: z
    .string()
    .max(200)
    .optional()
    .describe('Only conversations whose title contains this text (case and runs of whitespace ignored)'),
});

export function registerConversationRoutes(registry: RouteRegistry, deps: AppDependencies): void {
  const { conversations, runs } = deps;

  registry.add({
    method: 'get',
    path: '/api/conversations',

    response: RESPONSES.conversations,
    summary: 'My conversations, newest first',
    description:
      "Only the caller's own conversations, admins included. `status=archived` lists the archived ones " +
      '(restore one with `PATCH …/{id}` `{"status":"active"}`); `q` searches their titles. A conversation ' +
      'created without a title is called "New conversation" until its first message names it.',
    tag: 'conversations',
    access: 'user',
    query: listQuerySchema,
    handler: async ({ c, actor, query }) =>
      c.json({ conversations: await conversations.list(actor, query.status, query.q) }),
  });

  registry.add({
    method: 'post',
    path: '/api/conversations',
    errors: ['agent_not_found', 'agent_not_chattable', 'project_not_found'],

    response: RESPONSES.conversation,
    summary: 'Start a conversation with an agent',
    tag: 'conversations',
    access: 'user',
    status: 201,
    body: createConversationBodySchema,
    handler: async ({ c, actor, body }) =>
      c.json({ conversation: await conversations.create(actor, body) }, 201),
  });

  registry.add({
    method: 'get',
    path: '/api/conversations/{id}',

    response: RESPONSES.conversation,
    summary: 'One conversation',
    tag: 'conversations',
    access: 'user',
    params: idParamsSchema,
    handler: async ({ c, actor, params }) =>
      c.json({ conversation: await conversations.get(actor, params.id) }),
  });

  registry.add({
    method: 'patch',
    path: '/api/conversations/{id}',

    response: RESPONSES.conversation,
    summary: 'Rename, archive or restore a conversation',
    tag: 'conversations',
    access: 'user',
    params: idParamsSchema,
    body: patchConversationBodySchema,
    handler: async ({ c, actor, params, body }) =>
      c.json({ conversation: await conversations.patch(actor, params.id, body) }),
  });

  registry.add({
    method: 'get',
    path: '/api/conversations/{id}/messages',

    response: RESPONSES.messages,
    summary: 'The persisted messages of the conversation thread',
    tag: 'conversations',
    access: 'user',
    params: idParamsSchema,
    handler: async ({ c, actor, params }) =>
      c.json({ messages: await conversations.messages(actor, params.id) }),
  });

  registry.add({
    method: 'post',
    path: '/api/conversations/{id}/messages',
    errors: ['run_busy', 'request_id_conflict', 'conversation_archived', 'agent_not_found'],

    response: RESPONSES.startedRun,
    summary: 'Send a message: starts a run (or returns the existing one for a replayed request_id)',
    tag: 'conversations',
    access: 'user',
    status: 202,
    params: idParamsSchema,
    body: postMessageBodySchema,
    handler: async ({ c, actor, params, body }) =>
      // The run service reads the conversation in its own transaction and answers `conversation_not_found`
      // for anyone but its owner (an admin may read others' conversations but not speak in them).
      c.json(await runs.postMessage(actor, params.id, body), 202),
  });

  registry.add({
    method: 'get',
    path: '/api/conversations/{id}/subagents',

    response: RESPONSES.childRuns,
    summary: 'Subagent and delegation runs started from this conversation (the status panel)',
    tag: 'conversations',
    access: 'user',
    params: idParamsSchema,
    handler: async ({ c, actor, params }) => {
      const conversation = await conversations.get(actor, params.id);
      return c.json({ subagents: await runs.listChildRuns(actor, conversation.id) });
    },
  });

  registry.add({
    method: 'get',
    path: '/api/conversations/{id}/runs',

    response: RESPONSES.runs,
    summary: 'Runs of a conversation, newest first',
    tag: 'conversations',
    access: 'user',
    params: idParamsSchema,
    handler: async ({ c, actor, params }) => {
      const conversation = await conversations.get(actor, params.id);
      return c.json({ runs: await runs.listRunsOfConversation(actor, conversation.id) });
    },
  });
}
