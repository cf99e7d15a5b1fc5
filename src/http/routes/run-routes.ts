import { z } from 'zod';
import { APPROVAL_SCOPES } from '../../core/records/run.js';
import type { AppDependencies } from '../app-dependencies.js';
import { idParamsSchema } from '../id-params.js';
import type { Logger } from '../logger.js';
import type { RouteRegistry } from '../route-registry.js';
import { createRunEventStreamResponse } from './run-event-stream-response.js';
import { RESPONSES } from '../response-schemas/route-responses.js';

const DEFAULT_AWAIT_MS = 30_000;
/** Longer waits belong to SSE: proxies tend to cut idle requests after a few minutes. */
const MAX_AWAIT_MS = 10 * 60_000;

const awaitQuerySchema = z.object({
  timeout_ms: z.coerce.number().int().min(0).max(MAX_AWAIT_MS).default(DEFAULT_AWAIT_MS),
});

export const eventsQuerySchema = z.object({
  after_seq: z.coerce
    .number()
    .int()
    .min(0)
    .optional()
    .describe('Resume after this seq; the Last-Event-ID header wins when both are sent'),
});

const approvalParamsSchema = z.object({
  id: z.string().min(1).max(200).describe('Run id'),
  tool_call_id: z.string().min(1).max(200).describe('The tool call waiting for a decision'),
});

export const approvalBodySchema = z
  .object({
    decision: z.enum(['approve', 'reject']),
    comment: z.string().max(2000).optional().describe('Shown to the model with a rejection'),
    scope: z
      .enum(APPROVAL_SCOPES)
      .optional()
      .describe(
        '"run" (with approve only): approve this tool for the rest of the run; its other waiting calls are approved too. Default "call"',
      ),
  })
  .strict();

export function registerRunRoutes(registry: RouteRegistry, deps: AppDependencies, logger: Logger): void {
  const { runs } = deps;

  registry.add({
    method: 'get',
    path: '/api/agent/runs/{id}',

    response: RESPONSES.run,
    summary: 'One run',
    tag: 'runs',
    access: 'user',
    params: idParamsSchema,
    handler: async ({ c, actor, params }) => c.json({ run: await runs.getRun(actor, params.id) }),
  });

  registry.add({
    method: 'get',
    path: '/api/agent/runs/{id}/result',

    response: RESPONSES.runResult,
    summary: 'The result of a run (reads; never re-runs)',
    tag: 'runs',
    access: 'user',
    params: idParamsSchema,
    handler: async ({ c, actor, params }) => c.json(await runs.getResult(actor, params.id)),
  });

  registry.add({
    method: 'post',
    path: '/api/agent/runs/{id}/cancel',

    response: RESPONSES.run,
    summary: 'Cancel a run and its subtree',
    tag: 'runs',
    access: 'user',
    params: idParamsSchema,
    handler: async ({ c, actor, params }) => c.json({ run: await runs.cancel(actor, params.id) }),
  });

  registry.add({
    method: 'get',
    path: '/api/agent/runs/{id}/approvals',

    response: RESPONSES.approvals,
    summary: 'Tool calls of a run that need (or had) a human decision',
    tag: 'runs',
    access: 'user',
    params: idParamsSchema,
    handler: async ({ c, actor, params }) =>
      c.json({ approvals: await runs.listApprovals(actor, params.id) }),
  });

  registry.add({
    method: 'post',
    path: '/api/agent/runs/{id}/approvals/{tool_call_id}',
    errors: ['approval_decided', 'run_not_waiting'],
    response: RESPONSES.approvalDecided,
    summary: 'Approve or reject a sensitive tool call; the run resumes once every pending call is decided',
    description:
      'A rejection\'s `comment` is the reason the model reads in the call\'s result. `scope: "run"` approves the ' +
      'tool for the rest of this run: its other waiting calls are approved with this one and its later calls ' +
      'are not asked again. It covers this run only: subagent and delegated runs keep their own approval rules.',
    tag: 'runs',
    access: 'user',
    params: approvalParamsSchema,
    body: approvalBodySchema,
    handler: async ({ c, actor, params, body }) =>
      c.json(await runs.decideApproval(actor, params.id, params.tool_call_id, body)),
  });

  registry.add({
    method: 'get',
    path: '/api/agent/runs/{id}/await',

    response: RESPONSES.awaitedRun,
    summary: 'Wait for a run to end; on timeout returns the current run with wait_timed_out=true',
    tag: 'runs',
    access: 'user',
    params: idParamsSchema,
    query: awaitQuerySchema,
    handler: async ({ c, actor, params, query }) =>
      c.json(await runs.await(actor, params.id, query.timeout_ms)),
  });

  registry.add({
    method: 'get',
    path: '/api/agent/runs/{id}/events',
    summary: 'Server-sent events of a run: resumable, gapless, closes after `end`',
    description:
      "Resume with `Last-Event-ID` or `after_seq`. A resume at or past the run's `end` event answers 204 No Content " +
      'at once, so a standard EventSource stops reconnecting.',
    tag: 'runs',
    access: 'user',
    produces: 'text/event-stream',
    params: idParamsSchema,
    query: eventsQuerySchema,
    handler: ({ c, actor, params, query }) =>
      createRunEventStreamResponse({
        c,
        actor,
        runId: params.id,
        afterSeq: query.after_seq,
        runs,
        heartbeatMs: deps.sseHeartbeatMs,
        logger,
      }),
  });
}
