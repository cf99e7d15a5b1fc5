import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ChatMessage } from '../../core/thread/chat-message.js';
import { defineTool, type AnyTroupeTool } from '../../core/tools/troupe-tool.js';
import { createLifecycleToolGate, LIFECYCLE_TOOLS } from './lifecycle-tool-gate.js';

const tool = (name: string): AnyTroupeTool =>
  defineTool({
    name,
    effect: 'read_only',
    description: name,
    inputSchema: z.object({}),
    execute: () => Promise.resolve('ok'),
  });
const TOOLS = ['ls', 'task', 'subagent_start', ...LIFECYCLE_TOOLS].map(tool);
const names = (tools: AnyTroupeTool[]) => tools.map((entry) => entry.name);

const user: ChatMessage = { role: 'user', content: 'go' };
const call = (toolName: string): ChatMessage => ({
  role: 'assistant',
  content: [{ type: 'tool-call', toolCallId: `c-${toolName}`, toolName, input: {} }],
});

describe('createLifecycleToolGate', () => {
  it('hides the lifecycle tools until the prompt holds a subagent_start call, keeping the order', () => {
    const gate = createLifecycleToolGate();
    expect(names(gate(TOOLS, [user]))).toEqual(['ls', 'task', 'subagent_start']);
    expect(names(gate(TOOLS, [user, call('task')]))).toEqual(['ls', 'task', 'subagent_start']);
    expect(names(gate(TOOLS, [user, call('task'), call('subagent_start')]))).toEqual(names(TOOLS));
  });

  it('keeps them for the rest of the attempt, even once a compaction summarised the start away', () => {
    const gate = createLifecycleToolGate();
    gate(TOOLS, [user, call('subagent_start')]);
    expect(names(gate(TOOLS, [user]))).toEqual(names(TOOLS));
  });

  it('reads a resumed thread whole: a start of an earlier run shows them at once', () => {
    const gate = createLifecycleToolGate();
    expect(names(gate(TOOLS, [user, call('subagent_start'), user]))).toEqual(names(TOOLS));
  });
});
