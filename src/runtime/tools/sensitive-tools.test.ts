import { describe, expect, it } from 'vitest';
import { SENSITIVE_TOOLS } from '../../core/subagents/subagent-tool-policy.js';
import { createExecuteTool } from './execute/execute-tool.js';
import { createWorkdirTools } from './workdir/create-workdir-tools.js';

/**
 * `sensitive` is a property of the tool: approvals read nothing else. The core name list survives only
 * where no tool object exists (the static build report and spec building); it must name exactly the
 * catalogue tools that declare themselves sensitive.
 */
describe('sensitive tools', () => {
  it('are exactly the catalogue tools that declare `sensitive`, and the core list names them', () => {
    const execute = createExecuteTool({
      policyFor: () => Promise.reject(new Error('not run here')),
    } as unknown as Parameters<typeof createExecuteTool>[0]);
    const catalogue = [...createWorkdirTools(), execute];
    const declared = catalogue.filter((tool) => tool.sensitive === true).map((tool) => tool.name);
    expect(declared.sort()).toEqual([...SENSITIVE_TOOLS].sort());
  });
});
