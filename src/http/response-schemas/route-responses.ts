import { z } from 'zod';
import { RUN_STATUSES, RUN_TYPES } from '../../core/records/run.js';
import {
  agentSchema,
  approvalSchema,
  attachmentSchema,
  budgetViewSchema,
  conversationSchema,
  openObject,
  projectSchema,
  RESPONSE_SCHEMAS,
  runErrorSchema,
  runSchema,
  threadMessageSchema,
  tokenUsageSchema,
  userSchema,
  workerLostSchema,
} from './records.js';

/** The success bodies of the API's routes, by what they return (the records are in `records.ts`). */
const list = <T extends z.ZodType>(key: string, item: T) => z.object({ [key]: z.array(item) });
const one = <T extends z.ZodType>(key: string, item: T) => z.object({ [key]: item });

const grantSchema = z.looseObject({ user_id: z.string() }).register(RESPONSE_SCHEMAS, { id: 'Grant' });
const publicTokenSchema = z
  .looseObject({
    id: z.string(),
    user_id: z.string(),
    name: z.string(),
    prefix: z.string(),
    created_at: z.string(),
  })
  .register(RESPONSE_SCHEMAS, { id: 'ApiToken' });
const buildReport = openObject(
  'BuildReport',
  'What a config resolves to: effective tools, subagents, skills, warnings',
);
const subagentEntry = z
  .looseObject({
    run_id: z.string(),
    kind: z.enum(['subagent', 'delegation']),
    slug: z.string().nullable(),
    status: z.enum(RUN_STATUSES),
    parent_run_id: z.string().nullable(),
    usage: tokenUsageSchema.nullable(),
    worker_lost: workerLostSchema.nullable(),
    budget: budgetViewSchema.nullable(),
  })
  .register(RESPONSE_SCHEMAS, { id: 'ChildRunEntry' });

const knowledgeSource = openObject('KnowledgeSource', 'A knowledge source and its document count');
const skill = openObject('Skill', 'A skill: name, description, visibility, owner');

const runQuestion = openObject('RunQuestion', 'An ask_user_question call: its questions, status and answers');

const runListItem = z
  .looseObject({
    id: z.string(),
    status: z.enum(RUN_STATUSES),
    run_type: z.enum(RUN_TYPES),
    agent: z.looseObject({ id: z.string(), slug: z.string().nullable(), name: z.string().nullable() }),
    subagent_name: z.string().nullable(),
    user_id: z.string(),
    conversation_id: z.string(),
    root_run_id: z.string(),
    created_by_run_id: z.string().nullable(),
    depth: z.number().int(),
    created_at: z.string(),
    duration_ms: z.number().nullable(),
    usage: tokenUsageSchema.nullable(),
    worker_lost: workerLostSchema.nullable(),
    child_count: z.number().int(),
  })
  .register(RESPONSE_SCHEMAS, { id: 'RunListItem' });

const inspectedStep = z
  .strictObject({
    run_id: z.string(),
    step: z.number().int(),
    prompt: z.strictObject({
      messages: z.array(threadMessageSchema).describe('Exact: the stored thread before this call'),
      system_prompt: z.string().nullable().describe('The agent’s as configured now'),
      tools: z.array(z.string()).describe('The built-in tools the agent selects now'),
      agent_changed_since: z.boolean(),
      note: z.string().describe('What the rebuilt parts leave out'),
    }),
    completion: threadMessageSchema.nullable().describe('The model’s turn; null while it runs or when it kept nothing'),
    partial: z.boolean().describe('The turn is text streamed before the run stopped: the call never answered'),
    usage: z.strictObject({ input_tokens: z.number(), output_tokens: z.number() }).nullable(),
    tool_calls: z.array(
      z.strictObject({
        tool_call_id: z.string(),
        name: z.string(),
        args: z.unknown(),
        result: z.strictObject({ output: z.unknown(), is_error: z.boolean() }).nullable(),
      }),
    ),
  })
  .register(RESPONSE_SCHEMAS, { id: 'InspectedStep' });

const treeUsage = z.looseObject({
  total_tokens: z.number(),
  model_calls: z.number(),
  aborted_model_calls: z.number(),
});
interface TreeNode {
  run: z.infer<typeof runSchema>;
  children: TreeNode[];
}
const runTreeNode: z.ZodType<TreeNode> = z
  .looseObject({
    run: runSchema,
    get children() {
      return z.array(runTreeNode);
    },
    budget: budgetViewSchema.nullable(),
    totals: z.looseObject({ own: treeUsage, subtree: treeUsage }),
  })
  .register(RESPONSE_SCHEMAS, { id: 'RunTreeNode' });

export const RESPONSES = {
  health: z.object({ status: z.literal('ok'), version: z.string() }),
  openapi: openObject('OpenApiDocument', 'This document'),
  agents: list('agents', agentSchema),
  agent: one('agent', agentSchema),
  agentWithWarnings: z.looseObject({ agent: agentSchema, warnings: z.array(z.unknown()).optional() }),
  buildReport,
  grants: list('grants', grantSchema),
  grant: one('grant', grantSchema),
  conversations: list('conversations', conversationSchema),
  conversation: one('conversation', conversationSchema),
  messages: list('messages', threadMessageSchema),
  startedRun: z.object({ status: z.enum(['started', 'existing']), run: runSchema }),
  childRuns: list('subagents', subagentEntry),
  runs: list('runs', runSchema),
  run: one('run', runSchema),
  runResult: z.looseObject({
    status: z.enum(RUN_STATUSES),
    run_id: z.string(),
    thread_id: z.string(),
    conversation_id: z.string(),
    agent_id: z.string(),
    request_id: z.string(),
    output: z.string(),
    usage: tokenUsageSchema.nullable(),
    error: runErrorSchema.optional(),
  }),
  awaitedRun: z.object({ run: runSchema, wait_timed_out: z.boolean() }),
  approvals: list('approvals', approvalSchema),
  approvalDecided: z.object({ approval: approvalSchema, run: runSchema }),
  questions: list('questions', runQuestion),
  answered: z.object({ question: runQuestion, run: runSchema }),
  tree: one('tree', runTreeNode),
  trace: one('trace', openObject('RunTrace', 'Every run of the tree with its timeline, totals and budget')),
  step: one('step', inspectedStep),
  runListPage: z.object({ runs: z.array(runListItem), next_cursor: z.string().nullable() }),
  artifacts: list('artifacts', z.looseObject({ id: z.string(), path: z.string() })),
  attachments: list('attachments', attachmentSchema),
  limits: z.object({
    limits: z
      .object({
        attachment_max_bytes: z.number().int().describe('Largest file one attachment may be'),
        attachment_max_files: z.number().int().describe('Most files one upload may carry'),
      })
      .register(RESPONSE_SCHEMAS, { id: 'ServerLimits' }),
  }),
  delegationPolicy: z.looseObject({ policy: z.string(), whitelist: z.array(z.string()) }),
  delegateResult: z.looseObject({
    status: z.enum(RUN_STATUSES),
    run_id: z.string().nullable(),
    conversation_id: z.string().nullable(),
    thread_id: z.string().nullable(),
    output: z.string().nullable(),
    error: z.string().optional(),
    error_type: z.string().optional(),
    wait_timed_out: z.boolean().optional(),
  }),
  me: one('user', userSchema),
  users: list('users', userSchema),
  createdUser: z.looseObject({ user: userSchema, token: z.string(), record: publicTokenSchema }),
  tokens: list('tokens', publicTokenSchema),
  createdToken: z.object({ token: z.string(), record: publicTokenSchema }),
  projects: list('projects', projectSchema),
  project: one('project', projectSchema),
  knowledgeSources: list('sources', knowledgeSource),
  knowledgeSource: one('source', knowledgeSource),
  knowledgeDocuments: list('documents', openObject('KnowledgeDocument', 'A document of a knowledge source')),
  knowledgeSearch: z.looseObject({
    query: z.string(),
    terms: z.array(z.string()),
    results: z.array(z.unknown()),
  }),
  skills: list('skills', skill),
  skill: one('skill', skill),
  skillWithFiles: z.looseObject({ skill, files: z.array(z.unknown()) }),
  openAiModels: z.looseObject({
    object: z.literal('list'),
    data: z.array(z.looseObject({ id: z.string(), object: z.literal('model') })),
  }),
  openAiModel: z.looseObject({ id: z.string(), object: z.literal('model') }),
  openAiCompletion: openObject(
    'ChatCompletion',
    'An OpenAI chat.completion object (or SSE chunks with stream: true)',
  ),
  agentCard: openObject('AgentCard', 'An A2A agent card'),
  a2aResponse: openObject('JsonRpcResponse', 'A JSON-RPC 2.0 response (A2A)'),
} as const;
