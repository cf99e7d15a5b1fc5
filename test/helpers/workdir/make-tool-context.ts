import type { Run } from '../../../src/core/records/run.js';
import type { ToolContext } from '../../../src/core/tools/troupe-tool.js';

/**
 * A ToolContext over `workdir` for tests. The workdir tools never read `run`, so a stub stands in for it
 * rather than a full record that would have to follow every change to `Run`.
 */
export function makeToolContext(workdir: string, overrides: Partial<ToolContext> = {}): ToolContext {
  return {
    run: { id: 'run_workdir_test' } as Run,
    toolCallId: 'call_workdir_test',
    abortSignal: new AbortController().signal,
    emit: () => Promise.resolve(),
    workdir,
    ...overrides,
  };
}
