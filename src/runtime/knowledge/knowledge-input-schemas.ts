import { z } from 'zod';
import { sourceNameProblem } from '../../core/knowledge/knowledge-access-policy.js';
import { AGENT_VISIBILITIES } from '../../core/records/agent.js';

export const knowledgeSourceNameSchema = z
  .string()
  .superRefine((name, context) => {
    const problem = sourceNameProblem(name);
    if (problem !== undefined) context.addIssue({ code: 'custom', message: problem });
  })
  .describe('Unique name, e.g. "ops-handbook": what agent configs list in `knowledge_sources`');

/** Body of `POST /api/knowledge` (and of `troupe knowledge create`). */
export const createKnowledgeSourceInputSchema = z
  .object({
    name: knowledgeSourceNameSchema,
    description: z.string().max(4000).default(''),
    visibility: z.enum(AGENT_VISIBILITIES).default('private'),
  })
  .strict();

/** Body of `PUT /api/knowledge/{id}`: the name is fixed, since agent configs refer to it. */
export const updateKnowledgeSourceInputSchema = z
  .object({
    description: z.string().max(4000).optional(),
    visibility: z.enum(AGENT_VISIBILITIES).optional(),
  })
  .strict();

export const MAX_TOP_K = 20;
export const DEFAULT_TOP_K = 5;

/** Body of `POST /api/knowledge/{id}/search`; also the input of the `knowledge_search` tool. */
export const knowledgeSearchInputSchema = z
  .object({
    query: z.string().min(1).max(2000).describe('What to look for, in plain words.'),
    top_k: z
      .number()
      .int()
      .min(1)
      .max(MAX_TOP_K)
      .optional()
      .describe(`How many passages to return, best first (default ${DEFAULT_TOP_K}, at most ${MAX_TOP_K}).`),
  })
  .strict();

export type CreateKnowledgeSourceInput = z.input<typeof createKnowledgeSourceInputSchema>;
export type UpdateKnowledgeSourceInput = z.input<typeof updateKnowledgeSourceInputSchema>;
export type KnowledgeSearchInput = z.input<typeof knowledgeSearchInputSchema>;
