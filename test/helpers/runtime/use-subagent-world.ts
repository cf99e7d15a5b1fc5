import { afterEach, expect } from 'vitest';
import type { Agent, AgentConfig } from '../../../src/core/records/agent.js';
import type { Run } from '../../../src/core/records/run.js';
import {
  createRuntimeHarness,
  type RuntimeHarness,
  type RuntimeHarnessOptions,
} from '../create-runtime-harness.js';

/** A parent that stays `running` for a while, so tests can drive the subagent service as its tools would. */
export const PARENT_HOLDS = `rules:\n  - steps:\n      - delay_ms: 20000\n        text: holding\n`;
export const QUICK = `rules:\n  - steps:\n      - text: "done: {{input}}"\n`;
export const SLOW = `rules:\n  - steps:\n      - delay_ms: 20000\n        text: slow\n`;
/** A main agent that hands its input to `helper` through `task`, then quotes the result. */
export const TASK_MAIN = `
rules:
  - steps:
      - tool_calls:
          - name: task
            args: { subagent_slug: helper, description: "Investigate: {{input}}" }
      - text: "Main got: {{last_tool_result}}"
`;
/** A subagent that answers its task at once, quoting it. */
export const HELPER_REPORTS = `
rules:
  - steps:
      - text: "Helper report on <{{input}}>"
`;

export interface SubagentWorldOptions {
  main?: string;
  helper?: string;
  mainConfig?: Partial<AgentConfig>;
  harness?: RuntimeHarnessOptions;
}

/**
 * alice with an agent `main` (scripted, holding by default) and a subagent `helper` that may read files, and a
 * conversation with `main`; the harness is closed after each test of the file that calls this.
 */
export function useSubagentWorld() {
  let harness: RuntimeHarness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });
  return async function setup(options: SubagentWorldOptions = {}) {
    harness = await createRuntimeHarness({
      scenarios: { main: options.main ?? PARENT_HOLDS, helper: options.helper ?? QUICK },
      ...options.harness,
    });
    return subagentWorldIn(harness, options.mainConfig);
  };
}

/** The world's records in `harness` (scenarios `main` and `helper`), on whichever storage it runs. */
export async function subagentWorldIn(harness: RuntimeHarness, mainConfig?: Partial<AgentConfig>) {
  const user = await harness.createUser('alice');
  const helper = await harness.createAgent(
    user,
    'helper',
    { model: 'scripted:helper', tools: ['read_file', 'ls'] },
    { backend: 'subagent', is_subagent: true },
  );
  const main = await harness.createAgent(user, 'main', { model: 'scripted:main', ...mainConfig });
  const conversation = await harness.createConversation(user, main);
  return { h: harness, user, helper, main, conversation };
}

/** A start the rules refused, with a text that says why (the model reads it as an error result). */
export const refusedWith = (text: string) => ({
  kind: 'refused',
  error: expect.stringContaining(text) as unknown,
});

/** Posts a message and waits until its run is `running`. */
export async function runningParent(h: RuntimeHarness, userId: string, conversationId: string): Promise<Run> {
  const user = { id: userId, role: 'member' as const };
  const { run } = await h.runs.postMessage(user, conversationId, { content: 'parent' });
  for (let i = 0; i < 200; i++) {
    const current = await h.storage.runs.get(run.id);
    if (current?.status === 'running') return current;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('parent never started');
}

/** Starts a child of `parent` as its `task` tool would: awaited, for the tool call `toolCallId`. */
export function startTaskChild(
  h: RuntimeHarness,
  parent: Pick<Run, 'id' | 'user_id'>,
  subagent: Agent,
  toolCallId: string,
) {
  return h.subagents.start({
    creatorRunId: parent.id,
    userId: parent.user_id,
    subagent,
    description: 'look',
    toolCallId,
    awaited: true,
  });
}
