import { z } from 'zod';
import { agentAccessRecord } from '../../core/records/agent.js';
import { apiTokenRecord } from '../../core/records/api-token.js';
import { artifactRecord } from '../../core/records/artifact.js';
import { timestamp } from '../../core/records/record-fields.js';
import { childCardFields } from '../../core/records/run-event-payloads.js';
import { knowledgeAccessRecord } from '../../core/records/knowledge.js';
import { skillAccessRecord } from '../../core/records/skill.js';
import { RUN_STATUSES, RUN_TYPES } from '../../core/records/run.js';
import { evidenceSchema } from '../../core/verification/evidence.js';
import { verdictSummarySchema, verificationSchema } from '../../core/verification/verification.js';
import { DELEGATION_POLICIES } from '../../core/records/user.js';
import {
  buildReportEntrySchema,
  buildReportSchema,
  knowledgeDocumentSchema,
  knowledgeHitSchema,
  knowledgeSourceSchema,
  runQuestionSchema,
  runTraceSchema,
  skillFileInfoSchema,
  skillSchema,
} from './feature-records.js';
import { agentCardSchema, jsonRpcResponseSchema } from './a2a-records.js';
import { forkedRunSchema, forkOriginSchema, runComparisonSchema } from './fork-records.js';
import { chatCompletionSchema, openAiModelSchema } from './openai-records.js';
import {
  agentSchema,
  approvalSchema,
  attachmentSchema,
  budgetViewSchema,
  conversationSchema,
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
const list = <T extends z.ZodType>(key: string, item: T) => z.strictObject({ [key]: z.array(item) });
const one = <T extends z.ZodType>(key: string, item: T) => z.strictObject({ [key]: item });

const grantSchema = agentAccessRecord.register(RESPONSE_SCHEMAS, { id: 'Grant' });
const knowledgeGrantSchema = knowledgeAccessRecord.register(RESPONSE_SCHEMAS, { id: 'KnowledgeGrant' });
const skillGrantSchema = skillAccessRecord.register(RESPONSE_SCHEMAS, { id: 'SkillGrant' });
/** A token as its user sees it: never its hash. */
const publicTokenSchema = apiTokenRecord
  .omit({ token_hash: true })
  .register(RESPONSE_SCHEMAS, { id: 'ApiToken' });

const subagentEntry = z
  .strictObject({
    ...childCardFields,
    parent_run_id: z.string().nullable(),
    description: z.string().describe("The task as the parent wrote it: the child's input message"),
    progress: z.strictObject({
      last_seq: z.number().int(),
      items: z.array(
        z.strictObject({
          seq: z.number().int(),
          tool_call_id: z.string().optional(),
          kind: z.enum(['assistant_message', 'tool_call', 'tool_result']),
          content: z.string(),
        }),
      ),
    }),
    result: z.strictObject({ output: z.string().nullable(), error: runErrorSchema.nullable() }).nullable(),
    created_at: timestamp,
    started_at: timestamp.nullable(),
    finished_at: timestamp.nullable(),
    usage: tokenUsageSchema.nullable(),
    updated_at: timestamp,
    worker_lost: workerLostSchema.nullable(),
    budget: budgetViewSchema.nullable(),
    verification: verdictSummarySchema.nullable(),
  })
  .register(RESPONSE_SCHEMAS, { id: 'ChildRunEntry' });

const runListItem = z
  .strictObject({
    id: z.string(),
    status: z.enum(RUN_STATUSES),
    run_type: z.enum(RUN_TYPES),
    agent: z.strictObject({ id: z.string(), slug: z.string().nullable(), name: z.string().nullable() }),
    subagent_name: z.string().nullable(),
    user_id: z.string(),
    conversation_id: z.string(),
    thread_id: z.string(),
    root_run_id: z.string(),
    created_by_run_id: z.string().nullable(),
    depth: z.number().int(),
    model_spec: z.string(),
    created_at: timestamp,
    started_at: timestamp.nullable(),
    finished_at: timestamp.nullable(),
    updated_at: timestamp,
    duration_ms: z.number().nullable(),
    usage: tokenUsageSchema.nullable(),
    worker_lost: workerLostSchema.nullable(),
    child_count: z.number().int(),
    input_preview: z.string().describe('The input message on one line, cut at a word boundary'),
    error: runErrorSchema.nullable(),
    forked_from: forkOriginSchema.nullable(),
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
    completion: threadMessageSchema
      .nullable()
      .describe('The model’s turn; null while it runs or when it kept nothing'),
    partial: z
      .boolean()
      .describe('The turn is text streamed before the run stopped: the call never answered'),
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

const treeUsage = tokenUsageSchema.extend({
  tool_calls: z.number().nullable().describe('Counted by a budget ledger; null without one'),
  cost_usd: z.number().nullable().describe('With TROUPE_MODEL_PRICES; null otherwise'),
  budget_tokens: z
    .number()
    .describe(
      'The tokens as budgets count them: output and uncached input one each, cache reads and writes at their price relative to an uncached input token (docs/budgets.md#cached-tokens)',
    ),
});
interface TreeNode {
  run: z.infer<typeof runSchema>;
  children: TreeNode[];
}
const runTreeNode: z.ZodType<TreeNode> = z
  .strictObject({
    run: runSchema,
    get children() {
      return z.array(runTreeNode);
    },
    budget: budgetViewSchema.nullable(),
    totals: z.strictObject({ own: treeUsage, subtree: treeUsage }),
  })
  .register(RESPONSE_SCHEMAS, { id: 'RunTreeNode' });

/** An artifact as its conversation lists it: where it lies and what it is, not which call presented it. */
const artifactSchema = artifactRecord
  .omit({ user_id: true, tool_call_id: true })
  .register(RESPONSE_SCHEMAS, { id: 'Artifact' });

const delegationPolicy = {
  policy: z.enum(DELEGATION_POLICIES),
  whitelist: z.array(z.string()),
  max_whitelist: z.number().int(),
};

/** The OpenAPI document itself: its top level is named, what is inside is OpenAPI 3.1's own schema. */
const openApiDocument = z
  .strictObject({
    openapi: z.literal('3.1.0'),
    info: z.strictObject({ title: z.string(), version: z.string(), description: z.string() }),
    servers: z.array(z.strictObject({ url: z.string() })),
    paths: z.record(z.string(), z.record(z.string(), z.unknown())).describe('OpenAPI Path Item objects'),
    components: z.strictObject({
      securitySchemes: z.record(z.string(), z.unknown()),
      schemas: z.record(z.string(), z.unknown()).describe('JSON Schema 2020-12'),
    }),
  })
  .register(RESPONSE_SCHEMAS, { id: 'OpenApiDocument' });

export const RESPONSES = {
  health: z.strictObject({ status: z.literal('ok'), version: z.string() }),
  ready: z.strictObject({
    status: z.literal('ready'),
    checks: z
      .strictObject({ storage: z.literal('ok'), bus: z.literal('ok'), queue: z.literal('ok') })
      .describe('Each dependency this process needs; a 503 error lists them in `details.checks`'),
  }),
  openapi: openApiDocument,
  agents: list('agents', agentSchema),
  agent: one('agent', agentSchema),
  agentWithWarnings: z.strictObject({
    agent: agentSchema,
    warnings: z.array(buildReportEntrySchema).describe("The agent's build report entries"),
  }),
  buildReport: buildReportSchema,
  grants: list('grants', grantSchema),
  grant: one('grant', grantSchema),
  conversations: list('conversations', conversationSchema),
  conversation: one('conversation', conversationSchema),
  messages: list('messages', threadMessageSchema),
  startedRun: z.strictObject({ status: z.enum(['started', 'existing']), run: runSchema }),
  childRuns: list('subagents', subagentEntry),
  runs: list('runs', runSchema),
  run: one('run', runSchema),
  runResult: z.strictObject({
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
  awaitedRun: z.strictObject({ run: runSchema, wait_timed_out: z.boolean() }),
  approvals: list('approvals', approvalSchema),
  approvalDecided: z.strictObject({ approval: approvalSchema, run: runSchema }),
  questions: list('questions', runQuestionSchema),
  answered: z.strictObject({ question: runQuestionSchema, run: runSchema }),
  tree: one('tree', runTreeNode),
  trace: one('trace', runTraceSchema),
  step: one('step', inspectedStep),
  runListPage: z.strictObject({ runs: z.array(runListItem), next_cursor: z.string().nullable() }),
  forkedRun: forkedRunSchema,
  runComparison: runComparisonSchema,
  runEvidence: z.strictObject({
    evidence: evidenceSchema,
    verification: verificationSchema.nullable().describe('The stored verdict of a graded child run'),
  }),
  artifacts: list('artifacts', artifactSchema),
  attachments: list('attachments', attachmentSchema),
  limits: z.strictObject({
    limits: z
      .object({
        attachment_max_bytes: z.number().int().describe('Largest file one attachment may be'),
        attachment_max_files: z.number().int().describe('Most files one upload may carry'),
      })
      .register(RESPONSE_SCHEMAS, { id: 'ServerLimits' }),
  }),
  delegationPolicy: z.strictObject(delegationPolicy),
  delegationPolicyUpdate: z.strictObject({
    ...delegationPolicy,
    dropped: z.array(z.string()).describe('Whitelist entries over the limit, not stored'),
  }),
  delegateResult: z.strictObject({
    status: z.enum(RUN_STATUSES),
    run_id: z.string().nullable(),
    conversation_id: z.string().nullable(),
    thread_id: z.string().nullable(),
    output: z.string().nullable(),
    error: z.string().optional(),
    error_type: z.string().optional(),
    wait_timed_out: z.boolean().optional(),
    evidence: evidenceSchema.optional(),
    verification: verificationSchema.optional(),
  }),
  me: one('user', userSchema),
  users: list('users', userSchema),
  createdUser: z.strictObject({ user: userSchema, token: z.string(), record: publicTokenSchema }),
  tokens: list('tokens', publicTokenSchema),
  createdToken: z.strictObject({ token: z.string(), record: publicTokenSchema }),
  projects: list('projects', projectSchema),
  project: one('project', projectSchema),
  knowledgeSources: list('sources', knowledgeSourceSchema),
  knowledgeSource: one('source', knowledgeSourceSchema),
  knowledgeDocuments: list('documents', knowledgeDocumentSchema),
  addedDocuments: list(
    'documents',
    z.strictObject({
      document: knowledgeDocumentSchema,
      replaced: z.boolean().describe('A document of the same name was replaced'),
    }),
  ),
  knowledgeGrants: list('grants', knowledgeGrantSchema),
  knowledgeGrant: one('grant', knowledgeGrantSchema),
  knowledgeSearch: z.strictObject({
    query: z.string(),
    terms: z.array(z.string()).describe('The words actually searched for'),
    results: z.array(knowledgeHitSchema),
  }),
  skills: list('skills', skillSchema),
  skill: one('skill', skillSchema),
  skillGrants: list('grants', skillGrantSchema),
  skillGrant: one('grant', skillGrantSchema),
  savedSkill: z.strictObject({ skill: skillSchema, files: z.array(skillFileInfoSchema) }),
  skillWithFiles: z.strictObject({
    skill: skillSchema,
    files: z.array(skillFileInfoSchema),
    skill_md: z.string().describe('The whole SKILL.md, front matter included'),
  }),
  openAiModels: z.strictObject({ object: z.literal('list'), data: z.array(openAiModelSchema) }),
  openAiModel: openAiModelSchema,
  openAiCompletion: chatCompletionSchema,
  agentCard: agentCardSchema,
  a2aResponse: jsonRpcResponseSchema,
} as const;
