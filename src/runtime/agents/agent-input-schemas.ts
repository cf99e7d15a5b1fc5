import { z } from 'zod';
import { SLUG_PATTERN, slugProblem } from '../../core/agent-access-policy.js';
import { AGENT_BACKENDS, AGENT_VISIBILITIES, EXPERT_STATUSES } from '../../core/records/agent.js';
import { agentConfigSchema } from './agent-config-schema.js';

export const agentSlugSchema = z
  .string()
  .regex(
    SLUG_PATTERN,
    'slug must start with a lowercase letter and contain only a-z, 0-9, "_" or "-" (2 to 63 chars)',
  )
  .superRefine((slug, context) => {
    const problem = slugProblem(slug);
    // The pattern issue above already covers malformed slugs; only add the reserved-name reasons.
    if (problem !== undefined && SLUG_PATTERN.test(slug))
      context.addIssue({ code: 'custom', message: problem });
  });

const nameSchema = z.string().trim().min(1).max(200);
const descriptionSchema = z.string().max(4000);
const briefSchema = z.string().max(4000).nullable();

/**
 * Body of `POST /api/agent` (and of the CLI). `backend` and `is_subagent` are both optional: either one
 * implies the other, and giving both with different meanings is `agent_backend_mismatch`, which the
 * service reports (a zod refinement would turn it into a generic `validation_failed`).
 */
export const createAgentInputSchema = z
  .object({
    slug: agentSlugSchema.optional(),
    name: nameSchema,
    description: descriptionSchema.default(''),
    backend: z.enum(AGENT_BACKENDS).optional(),
    is_subagent: z.boolean().optional(),
    visibility: z.enum(AGENT_VISIBILITIES).default('private'),
    config: agentConfigSchema.default({}),
    status: z.enum(EXPERT_STATUSES).default('draft'),
    delegatable: z.boolean().default(true),
    delegation_brief: briefSchema.default(null),
    is_default: z.boolean().default(false),
  })
  .strict();

/**
 * Body of `PUT /api/agent/{id}`: a partial update, every field optional. `backend` and `is_subagent`
 * may be sent (clients often echo the whole record back) but must equal the stored values: the backend is
 * immutable. The default flag moves only through `set_default`. `config` replaces the whole config.
 */
export const updateAgentInputSchema = z
  .object({
    slug: agentSlugSchema.optional(),
    name: nameSchema.optional(),
    description: descriptionSchema.optional(),
    backend: z.enum(AGENT_BACKENDS).optional(),
    is_subagent: z.boolean().optional(),
    visibility: z.enum(AGENT_VISIBILITIES).optional(),
    config: agentConfigSchema.optional(),
    status: z.enum(EXPERT_STATUSES).optional(),
    delegatable: z.boolean().optional(),
    delegation_brief: briefSchema.optional(),
  })
  .strict();

export type CreateAgentInput = z.input<typeof createAgentInputSchema>;
export type UpdateAgentInput = z.input<typeof updateAgentInputSchema>;
