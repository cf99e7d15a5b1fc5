import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ToolApprovalMode } from '../../../core/records/agent.js';
import type { Run } from '../../../core/records/run.js';
import { createTestStorage, type TestStorage } from '../../../../test/helpers/http/create-test-storage.js';
import {
  createRuntimeHarness,
  type RuntimeHarness,
} from '../../../../test/helpers/create-runtime-harness.js';
import { executeTool } from '../../agent-loop/execute-tool.js';
import type { ModelCallRequest } from '../../../core/ports/agent-middleware.js';
import { composeMiddleware } from '../../middleware/compose-middleware.js';
import { createSubagentToolFilterMiddleware } from '../../middleware/subagent-tool-filter-middleware.js';
import { defineTool, type ToolContext } from '../../../core/tools/troupe-tool.js';
import { createHumanTools, HUMAN_TOOL_NAMES } from './create-human-tools.js';

let store: TestStorage | undefined;
let harness: RuntimeHarness | undefined;
afterEach(async () => {
  await store?.close();
  await harness?.close();
  store = undefined;
  harness = undefined;
});

const refusal = (name: string) =>
  `tool ${name} is not available to subagents in this approval mode; hand the result back to the main agent`;

const ls = defineTool({
  effect: 'read_only',
  name: 'ls',
  description: 'list',
  inputSchema: z.object({}),
  execute: () => Promise.resolve('a.txt'),
});

function subagentRun(mode: ToolApprovalMode): Run {
  return {
    id: 'run_child',
    run_type: 'subagent',
    tool_approval_mode: mode,
    conversation_id: 'cnv_x',
    user_id: 'usr_x',
  } as Run;
}

function contextFor(run: Run, toolCallId: string): ToolContext {
  return {
    run,
    toolCallId,
    abortSignal: new AbortController().signal,
    emit: () => Promise.resolve(),
    workdir: store?.dir ?? '',
  };
}

const INPUTS: Record<string, unknown> = {
  ask_user_question: { questions: [{ question: 'Which one?' }] },
  present_artifacts: { artifacts: [{ path: 'troupe.db' }] },
};

describe.each(['default', 'always_trust'] as const)(
  'the real ask_user_question and present_artifacts in a %s subagent',
  (mode) => {
    it('are hidden from the model and refused at execution, recording nothing', async () => {
      store = await createTestStorage();
      const tools = [...createHumanTools(store.storage), ls];
      const seen: string[][] = [];
      const chain = composeMiddleware([createSubagentToolFilterMiddleware(mode)], {
        callModel: (request: ModelCallRequest) => {
          seen.push(request.tools.map((tool) => tool.name));
          return Promise.resolve({
            text: '',
            toolCalls: [],
            usage: { input_tokens: 0, output_tokens: 0 },
            finishReason: 'stop',
          });
        },
        callTool: executeTool,
      });
      const run = subagentRun(mode);
      await chain.callModel({ run, tools } as unknown as ModelCallRequest);
      expect(seen).toEqual([['ls']]);

      for (const tool of tools.filter((candidate) => candidate.name !== 'ls')) {
        const result = await chain.callTool({
          run,
          agent: {} as never,
          toolCallId: `call_${tool.name}`,
          toolName: tool.name,
          input: INPUTS[tool.name],
          tool,
          context: contextFor(run, `call_${tool.name}`),
        });
        expect(result).toEqual({
          output: refusal(tool.name),
          isError: true,
          refusal: { code: 'tool_not_available', reason: refusal(tool.name), tool: tool.name },
        });
      }
      expect(await store.storage.approvals.listForRun(run.id)).toEqual([]);
      expect(await store.storage.artifacts.listForConversation(run.conversation_id)).toEqual([]);
    });

    it('refuse a subagent run themselves, should they ever be mounted without the filter', async () => {
      store = await createTestStorage();
      const run = subagentRun(mode);
      for (const tool of createHumanTools(store.storage)) {
        const input: unknown = tool.inputSchema.parse(INPUTS[tool.name]);
        await expect(tool.execute(input, contextFor(run, 'call_direct'))).rejects.toMatchObject({
          code: 'tool_not_found',
          message: refusal(tool.name),
          refusal: { code: 'tool_not_available', reason: refusal(tool.name), tool: tool.name },
        });
      }
      expect(await store.storage.approvals.listForRun(run.id)).toEqual([]);
    });
  },
);

describe('a registered subagent configured with the human tools', () => {
  it('is never offered them: a scripted call to ask_user_question fails as not offered', async () => {
    harness = await createRuntimeHarness({
      scenarios: {
        main: `
rules:
  - steps:
      - tool_calls: [{ name: task, args: { subagent_slug: helper, description: "ask the user" } }]
      - text: "parent: {{last_tool_result}}"
`,
        helper: `
rules:
  - steps:
      - tool_calls: [{ name: ask_user_question, args: { questions: [{ question: "May I?" }] } }]
      - text: "asked"
`,
      },
    });
    const user = await harness.createUser('alice');
    await harness.createAgent(
      user,
      'helper',
      { model: 'scripted:helper', tools: [...HUMAN_TOOL_NAMES, 'read_file'] },
      { backend: 'subagent', is_subagent: true },
    );
    const agent = await harness.createAgent(user, 'main', {
      model: 'scripted:main',
      tool_approval_mode: 'always_trust',
    });
    const conversation = await harness.createConversation(user, agent);
    const { run } = await harness.runs.postMessage(user, conversation.id, { content: 'go' });
    expect((await harness.runs.await(user, run.id, 10_000)).run.status).toBe('completed');
    const [child] = await harness.storage.runs.listChildren(run.id);
    expect(child?.status).toBe('failed');
    expect(child?.error?.type).toBe('scenario_invalid');
    expect(child?.error?.message).toContain('ask_user_question');
    expect(await harness.storage.approvals.listForRun(child?.id ?? '')).toEqual([]);
  });
});
