import { z } from 'zod';
import type { AppDependencies } from '../app-dependencies.js';
import { idParamsSchema } from '../id-params.js';
import type { RouteRegistry } from '../route-registry.js';
import { RESPONSES } from '../response-schemas/route-responses.js';

const compareParamsSchema = z.object({
  id: z.string().min(1).max(200).describe('Run a'),
  other_id: z.string().min(1).max(200).describe('Run b'),
});

export const forkBodySchema = z
  .object({
    after_step: z
      .number()
      .int()
      .min(0)
      .max(1_000_000)
      .optional()
      .describe(
        "The source's last step the new thread keeps (0: its input only). Default: the whole run with `input`, 0 without",
      ),
    input: z
      .string()
      .max(200_000)
      .optional()
      .describe(
        "The fork's message. Without it the fork re-runs the source's input, continuing after `after_step`",
      ),
    agent_overrides: z
      .object({
        model: z
          .string()
          .min(1)
          .max(300)
          .optional()
          .describe('`provider:model`; the agent’s owner or an admin only'),
        system_prompt: z.string().max(200_000).optional().describe('The agent’s owner or an admin only'),
        tools: z
          .array(z.string().min(1).max(200))
          .max(500)
          .optional()
          .describe(
            'Names or patterns; only the agent’s own tools that match one are kept (tools only narrow)',
          ),
      })
      .strict()
      .optional(),
  })
  .strict();

/** Forks and comparisons (docs/effects-and-forks.md). */
export function registerRunForkRoutes(registry: RouteRegistry, deps: AppDependencies): void {
  registry.add({
    method: 'post',
    path: '/api/agent/runs/{id}/fork',
    status: 202,
    errors: ['fork_override_forbidden', 'fork_point_invalid', 'step_not_found', 'agent_not_found'],
    response: RESPONSES.forkedRun,
    summary: 'Fork a run from a step into a new conversation and start a run there',
    description:
      'The new conversation (same user, agent and project) holds the source thread up to `after_step`; the ' +
      'source is only read. With `input` the fork is a new turn; without, it re-runs the source’s input from ' +
      'that step. The run and the conversation record `forked_from`. Only the run’s own user forks (anyone ' +
      'else: `run_not_found`). `agent_overrides.model` and `.system_prompt` need edit rights on the agent ' +
      '(`fork_override_forbidden`); `.tools` only narrow.',
    tag: 'runs',
    access: 'user',
    params: idParamsSchema,
    body: forkBodySchema,
    handler: async ({ c, actor, params, body }) => c.json(await deps.forks.fork(actor, params.id, body), 202),
  });

  registry.add({
    method: 'get',
    path: '/api/agent/runs/{id}/compare/{other_id}',
    response: RESPONSES.runComparison,
    summary:
      'Two runs side by side: their trees, steps, tool calls, tokens, cost, duration and an output diff',
    description:
      'Returns `{comparison: {a, b, output_diff}}`: each side is the run with the runs it created, nested; ' +
      '`output_diff` goes from a’s final output to b’s. Both runs must be readable by the caller ' +
      '(`run_not_found` otherwise).',
    tag: 'runs',
    access: 'user',
    params: compareParamsSchema,
    handler: async ({ c, actor, params }) =>
      c.json({ comparison: await deps.forks.compare(actor, params.id, params.other_id) }),
  });
}
