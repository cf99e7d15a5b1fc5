import { describe, expect, it } from 'vitest';
import { runCapabilities } from './run-capabilities.js';

describe('run capabilities', () => {
  it.each([
    ['chat', false, { subagent: false, startsAgents: true, steerable: false }],
    ['delegation', false, { subagent: false, startsAgents: true, steerable: false }],
    ['subagent', true, { subagent: true, startsAgents: false, steerable: true }],
    ['subagent', false, { subagent: true, startsAgents: false, steerable: true }],
    ['chat', true, { subagent: false, startsAgents: false, steerable: false }],
  ] as const)('a %s run of an agent with is_subagent=%s', (runType, isSubagent, expected) => {
    expect(runCapabilities({ run_type: runType }, { is_subagent: isSubagent })).toEqual(expected);
  });

  it('without the agent, judges by the run alone', () => {
    expect(runCapabilities({ run_type: 'subagent' }).subagent).toBe(true);
    expect(runCapabilities({ run_type: 'chat' }).startsAgents).toBe(true);
  });
});
