import { z } from 'zod';
import type { Run } from '../../../core/records/run.js';
import { defineTool, type TroupeTool } from '../../../core/tools/troupe-tool.js';
import type { ExecutePolicy } from './execute-policy.js';
import { formatExecuteResult } from './format-execute-result.js';
import { SANDBOX_WORKDIR, type Sandbox } from './sandbox.js';

const executeInputSchema = z
  .object({
    command: z
      .string()
      .min(1)
      .max(100_000)
      .describe('The shell command, run with bash -c in the project workdir.'),
    timeout_ms: z
      .number()
      .int()
      .positive()
      .optional()
      .describe('Wall-time limit in milliseconds; it can only lower the limit the server and the agent set.'),
  })
  .strict();

export type ExecuteInput = z.infer<typeof executeInputSchema>;

export interface ExecuteToolDeps {
  sandbox: Sandbox;
  policyFor(run: Run): Promise<ExecutePolicy>;
}

/** `execute` (docs/runtime-tools.md): a shell command in the project workdir, always inside the sandbox. */
export function createExecuteTool(deps: ExecuteToolDeps): TroupeTool<ExecuteInput> {
  return defineTool<ExecuteInput>({
    name: 'execute',
    effect: 'external',
    description:
      `Run a shell command (bash -c) in a sandbox whose working directory ${SANDBOX_WORKDIR} is the project ` +
      'workdir, the only place it can write (plus a private /tmp). System directories are read-only, there is ' +
      'no network unless the agent allows it, and wall time, CPU, memory, processes and output are limited. ' +
      'Returns the exit code, stdout and stderr; long output is truncated.',
    inputSchema: executeInputSchema,
    sensitive: true,
    async execute(input, context) {
      context.abortSignal.throwIfAborted();
      const policy = await deps.policyFor(context.run);
      const limits = {
        ...policy.limits,
        timeoutMs: Math.min(policy.limits.timeoutMs, input.timeout_ms ?? Infinity),
      };
      const result = await deps.sandbox.run({
        command: input.command,
        workdir: context.workdir,
        network: policy.network,
        limits,
        signal: context.abortSignal,
      });
      return formatExecuteResult(result, limits.timeoutMs);
    },
  });
}
