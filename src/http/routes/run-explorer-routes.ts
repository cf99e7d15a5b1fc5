import { z } from 'zod';
import { RUN_STATUSES, RUN_TYPES } from '../../core/records/run.js';
import { GRADED_VERDICTS } from '../../core/verification/verification.js';
import { buildRunTrace } from '../../runtime/runs/inspect/build-run-trace.js';
import { listRuns, MAX_RUN_LIST_LIMIT } from '../../runtime/runs/inspect/list-runs.js';
import type { AppDependencies } from '../app-dependencies.js';
import { idParamsSchema } from '../id-params.js';
import type { RouteRegistry } from '../route-registry.js';
import { RESPONSES } from '../response-schemas/route-responses.js';

/** `a,b` → `['a', 'b']`, each one of `values`; repeated commas and spaces are ignored. */
function commaList<T extends string>(values: readonly [T, ...T[]], what: string) {
  return z
    .string()
    .max(500)
    .describe(`Comma-separated ${what}: any of ${values.join(', ')}`)
    .transform((text) =>
      text
        .split(',')
        .map((part) => part.trim())
        .filter((part) => part !== ''),
    )
    .pipe(z.array(z.enum(values)).min(1));
}

/** An ISO-8601 instant (with `Z` or an offset), normalised to UTC so it compares with stored timestamps. */
const instant = (what: string) =>
  z.iso
    .datetime({ offset: true })
    .describe(what)
    .transform((text) => new Date(text).toISOString());

const optionalId = (what: string) => z.string().min(1).max(200).describe(what).optional();

const stepParamsSchema = z.object({
  id: z.string().min(1).max(200).describe('Run id'),
  step: z.coerce.number().int().min(1).max(1_000_000).describe('Step of the run: its n-th model call'),
});

export const runListQuerySchema = z
  .object({
    status: commaList(RUN_STATUSES, 'statuses').optional(),
    kind: commaList(RUN_TYPES, 'run types').optional(),
    verdict: commaList(GRADED_VERDICTS, 'verdicts')
      .optional()
      .describe('Only child runs judged with one of these verdicts (docs/verified-delegation.md)'),
    agent: optionalId('Agent id or slug'),
    conversation_id: optionalId("Only this conversation's runs (another user's is conversation_not_found)"),
    user_id: optionalId("Admins: only this user's runs. Members only ever see their own"),
    from: instant('Created at or after this instant').optional(),
    to: instant('Created before this instant').optional(),
    q: z.string().max(500).describe('Case-insensitive text in the input message').optional(),
    forked: z.stringbool().describe('true: only runs started by a fork; false: only the others').optional(),
    cursor: z.string().min(1).max(1000).describe('`next_cursor` of the previous page').optional(),
    limit: z.coerce.number().int().min(1).max(MAX_RUN_LIST_LIMIT).default(50),
  })
  .strict();

/**
 * The console's runs explorer and trace view. Registered before the agent routes: `/api/agent/runs` would
 * otherwise be read as the agent with id "runs".
 */
export function registerRunExplorerRoutes(registry: RouteRegistry, deps: AppDependencies): void {
  registry.add({
    method: 'get',
    path: '/api/agent/runs',

    response: RESPONSES.runListPage,
    summary: 'My runs (admins: everyone’s), newest first, filtered and paginated',
    description:
      'Returns `{runs: [...], next_cursor}`; pass `next_cursor` as `cursor` for the next page (null on the ' +
      'last). Each run has its status, agent, run type, timings (`duration_ms`), token usage, `child_count`, ' +
      '`input_preview` and `forked_from` (set on a run a fork started).',
    tag: 'runs',
    access: 'user',
    query: runListQuerySchema,
    handler: async ({ c, actor, query }) => {
      const { status, kind, verdict, ...rest } = query;
      return c.json(
        await listRuns(deps.storage, deps.runViews, actor, {
          ...rest,
          ...(status === undefined ? {} : { status }),
          ...(kind === undefined ? {} : { kind }),
          ...(verdict === undefined ? {} : { verdict }),
        }),
      );
    },
  });

  registry.add({
    method: 'get',
    path: '/api/agent/runs/{id}/steps/{step}',

    response: RESPONSES.step,
    summary: 'One model call of a run: its prompt, completion, usage and tool calls',
    description:
      'Returns `{step: {run_id, step, prompt, completion, partial, usage, tool_calls}}`. Prompts are not stored ' +
      'per call: `prompt.messages` is exact (the stored thread before the call), `system_prompt` and `tools` ' +
      'are the agent’s as configured now (`note` says what that leaves out). The step after the run’s last ' +
      'stored one is its call in progress (or one that never answered); a step it has not reached is ' +
      '`step_not_found`. A run the caller cannot see is `run_not_found`.',
    tag: 'runs',
    access: 'user',
    params: stepParamsSchema,
    handler: async ({ c, actor, params }) =>
      c.json({ step: await deps.runs.inspectStep(actor, params.id, params.step) }),
  });

  registry.add({
    method: 'get',
    path: '/api/agent/runs/{id}/trace',

    response: RESPONSES.trace,
    summary: 'The run tree with each run’s model and tool calls as timed spans, and token totals per subtree',
    description:
      'Returns `{trace: {root_run_id, run_id, generated_at, nodes: [...]}}`, parents before children. Each ' +
      'node has its `run`, `timeline` (spans from stored events; `last_seq` is where a live event stream ' +
      'resumes) and `totals` (own, children, subtree).',
    tag: 'runs',
    access: 'user',
    params: idParamsSchema,
    handler: async ({ c, actor, params }) =>
      c.json({ trace: await buildRunTrace(deps.storage, deps.runViews, actor, params.id) }),
  });
}
