import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  ECHO_SCENARIO as ECHO,
  useSingleAgentRuntime,
} from '../../../../test/helpers/runtime/use-single-agent-runtime.js';
import { defineTool } from '../../../core/tools/troupe-tool.js';

const setup = useSingleAgentRuntime();

describe('run service: loop rules', () => {
  it('runs the parallel tool calls of one step concurrently', async () => {
    let inFlight = 0;
    let peak = 0;
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const meet = defineTool({
      effect: 'read_only',
      name: 'meet',
      description: 'waits until both calls are in flight',
      inputSchema: z.object({ who: z.string() }),
      async execute({ who }) {
        inFlight += 1;
        peak = Math.max(peak, inFlight);
        if (inFlight === 2) release();
        await gate;
        inFlight -= 1;
        return `met ${who}`;
      },
    });
    const scenario = `rules:\n  - steps:\n      - tool_calls:\n          - { name: meet, args: { who: a } }\n          - { name: meet, args: { who: b } }\n      - text: done\n`;
    const { h, user, conversation } = await setup(scenario, { extraTools: [meet] });
    const { run } = await h.runs.postMessage(user, conversation.id, { content: 'x' });
    const awaited = await h.runs.await(user, run.id, 10_000);
    expect(awaited.run.status).toBe('completed');
    expect(peak).toBe(2);
  });

  it('stops at max_steps as interrupted', async () => {
    const loop = `rules:\n  - steps:\n${'      - tool_calls: [{ name: ls, args: {} }]\n'.repeat(5)}`;
    const { h, user, conversation } = await setup(loop, { limits: { maxSteps: 2 } });
    const { run } = await h.runs.postMessage(user, conversation.id, { content: 'x' });
    const awaited = await h.runs.await(user, run.id, 10_000);
    expect(awaited.run.status).toBe('interrupted');
    expect(awaited.run.error?.type).toBe('max_steps');
  });

  it('fails a run whose scripted tool call does not match the tool schema', async () => {
    const bad = `rules:\n  - steps:\n      - tool_calls: [{ name: read_file, args: { wrong: 1 } }]\n`;
    const { h, user, conversation } = await setup(bad);
    const { run } = await h.runs.postMessage(user, conversation.id, { content: 'x' });
    const awaited = await h.runs.await(user, run.id, 10_000);
    expect(awaited.run.status).toBe('failed');
    expect(awaited.run.error?.type).toBe('scenario_invalid');
    const types = (await h.storage.events.list(run.id, 0, 100)).map((event) => event.type);
    expect(types.slice(-2)).toEqual(['error', 'end']);
  });

  it('runs middleware around model and tool calls, outermost first', async () => {
    const order: string[] = [];
    const { h, user, conversation } = await setup(ECHO, {
      middleware: () =>
        Promise.resolve([
          {
            name: 'outer',
            async wrapModelCall(request, next) {
              order.push('outer-model');
              return next({ ...request, system: `${request.system}\nouter section` });
            },
            async wrapToolCall(request, next) {
              order.push(`outer-tool:${request.toolName}`);
              return next(request);
            },
          },
          {
            name: 'inner',
            async wrapModelCall(request, next) {
              order.push('inner-model');
              expect(request.system).toContain('outer section');
              return next(request);
            },
          },
        ]),
    });
    const { run } = await h.runs.postMessage(user, conversation.id, { content: 'x' });
    expect((await h.runs.await(user, run.id, 10_000)).run.status).toBe('completed');
    expect(order.slice(0, 3)).toEqual(['outer-model', 'inner-model', 'outer-tool:write_file']);
  });
});
