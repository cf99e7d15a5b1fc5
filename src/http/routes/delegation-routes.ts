import { z } from 'zod';
import { DELEGATION_POLICIES } from '../../core/records/user.js';
import type { AppDependencies } from '../app-dependencies.js';
import type { RouteRegistry } from '../route-registry.js';
import { budgetSchema } from '../../runtime/budgets/budget-schema.js';
import { RESPONSES } from '../response-schemas/route-responses.js';

const DEFAULT_WAIT_MS = 30_000;
/** Longer work belongs to the run's SSE stream: proxies cut idle requests after a few minutes. */
const MAX_WAIT_MS = 5 * 60_000;

export const delegationPolicyBodySchema = z
  .object({
    policy: z.enum(DELEGATION_POLICIES),
    whitelist: z
      .array(z.string().min(1).max(200))
      .max(100)
      .optional()
      .describe(
        'Expert slugs or ids; only with policy "whitelist"; at most 10 are kept, the rest reported in `dropped`',
      ),
  })
  .strict();

export const delegateBodySchema = z
  .object({
    expert: z.string().trim().min(1).max(200).describe('Slug or id of the expert to delegate to'),
    task: z.string().trim().min(1).max(100_000).describe('The whole brief for the expert'),
    conversation_id: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe('My conversation this delegation comes from'),
    parent_run_id: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe('My active run this delegation is a child of'),
    budget: budgetSchema
      .optional()
      .describe("Narrows the expert's budget; with parent_run_id, a part of that run's remaining budget"),
    acceptance: z
      .string()
      .trim()
      .min(1)
      .max(20_000)
      .optional()
      .describe('Acceptance criteria: the finished run is graded and revised if needed (`verification`)'),
  })
  .strict();

const delegateQuerySchema = z.object({
  wait_ms: z.coerce.number().int().min(0).max(MAX_WAIT_MS).default(DEFAULT_WAIT_MS),
});

export function registerDelegationRoutes(registry: RouteRegistry, deps: AppDependencies): void {
  const policies = deps.delegationPolicies;

  registry.add({
    method: 'get',
    path: '/api/me/delegation-policy',

    response: RESPONSES.delegationPolicy,
    summary: 'My delegation policy: which experts my experts may delegate to',
    tag: 'delegation',
    access: 'user',
    handler: async ({ c, actor }) => c.json(await policies.get(actor)),
  });

  registry.add({
    method: 'put',
    path: '/api/me/delegation-policy',

    response: RESPONSES.delegationPolicyUpdate,
    summary: 'Set my delegation policy (none | all | whitelist of at most 10)',
    description:
      'Whitelist entries over the limit of 10 are dropped, logged and listed in `dropped`. With policy ' +
      '"none" or "all" the whitelist is ignored and stored empty; policy "whitelist" needs at least one entry.',
    tag: 'delegation',
    access: 'user',
    body: delegationPolicyBodySchema,
    handler: async ({ c, actor, body }) => {
      const policy = await policies.set(actor, body);
      // The policy is part of the user record the auth cache hands to later requests (`GET /api/me`).
      deps.auth.forgetUser(actor.id);
      return c.json(policy);
    },
  });

  registry.add({
    method: 'post',
    path: '/api/delegate',
    errors: ['run_busy', 'run_not_found', 'conversation_not_found'],

    response: RESPONSES.delegateResult,
    summary: 'Run an expert for me on a task and wait for its answer (HTTP 200 even when refused)',
    description:
      'Answers `{status, run_id, conversation_id, thread_id, output, error?}`. A refused delegation ("Expert is ' +
      'not delegatable", "Expert not found or access denied", depth limit, cycle) or a failed run is HTTP 200 ' +
      'with `status: "failed"`; malformed bodies are 400 and foreign ids 404. `wait_ms` bounds the wait ' +
      '(default 30 s); past it the answer has the current status and `wait_timed_out: true`. A finished run comes ' +
      'with `evidence` (what it did, from its records) and `verification` (`unverified` without `acceptance`; ' +
      "with it, the grader's verdict after any revisions).",
    tag: 'delegation',
    access: 'user',
    query: delegateQuerySchema,
    body: delegateBodySchema,
    handler: async ({ c, actor, query, body }) => {
      return c.json(await deps.delegation.delegate(actor, body, query.wait_ms), 200);
    },
  });
}
