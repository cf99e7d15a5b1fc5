import { expect } from 'vitest';
import type { AgentConfig } from '../../../src/core/records/agent.js';
import type { User } from '../../../src/core/records/user.js';
import type { MiddlewareFactory } from '../../../src/runtime/middleware/middleware-factory.js';
import { createRuntimeHarness, type RuntimeHarness } from '../create-runtime-harness.js';

let harness: RuntimeHarness | undefined;

/** For afterEach: closes the harness the last setup opened. */
export async function closeInlineSubagentHarness(): Promise<void> {
  await harness?.close();
  harness = undefined;
}

export const taskCall = (slug: string) => `
rules:
  - steps:
      - tool_calls:
          - name: task
            args: { subagent_slug: ${slug}, description: "Look into: {{input}}" }
      - text: "Main got: {{last_tool_result}}"
`;
const SCANNER = `
rules:
  - steps:
      - tool_calls: [{ name: ls, args: {} }]
      - text: "scanner listed the workdir"
`;
export const REPLY = (text: string) => `rules:\n  - steps:\n      - text: "${text}"\n`;

/** What the model was shown, per run type: the last model call of each kind wins. */
interface Seen {
  main: { system: string; tools: string[] };
  child: { system: string; tools: string[] };
}

function probe(seen: Seen): MiddlewareFactory {
  return () =>
    Promise.resolve([
      {
        name: 'probe',
        wrapModelCall(request, next) {
          const slot = request.run.run_type === 'subagent' ? seen.child : seen.main;
          slot.system = request.system;
          slot.tools = request.tools.map((tool) => tool.name).sort();
          return next(request);
        },
      },
    ]);
}

interface Setup {
  main: string;
  mainConfig: AgentConfig;
  scenarios?: Record<string, string>;
  registered?: { slug: string; description: string; scenario: string }[];
}

export async function inlineSubagentSetup(options: Setup) {
  const seen: Seen = { main: { system: '', tools: [] }, child: { system: '', tools: [] } };
  const registered = options.registered ?? [];
  harness = await createRuntimeHarness({
    scenarios: {
      main: options.main,
      scanner: SCANNER,
      ...Object.fromEntries(registered.map((entry) => [entry.slug, entry.scenario])),
      ...options.scenarios,
    },
    middleware: probe(seen),
  });
  const user = await harness.createUser('alice');
  for (const entry of registered) {
    await harness.createAgent(
      user,
      entry.slug,
      { model: `scripted:${entry.slug}` },
      {
        backend: 'subagent',
        is_subagent: true,
        description: entry.description,
      },
    );
  }
  const main = await harness.createAgent(user, 'main', { model: 'scripted:main', ...options.mainConfig });
  const conversation = await harness.createConversation(user, main);
  return { h: harness, user, main, conversation, seen };
}

export async function runTurn(h: RuntimeHarness, user: User, conversationId: string, content = 'the repo') {
  const { run } = await h.runs.postMessage(user, conversationId, { content });
  const done = await h.runs.await(user, run.id, 20_000);
  expect(done.run.status).toBe('completed');
  const [child] = await h.storage.runs.listChildren(run.id);
  return { run: done.run, child };
}

export const SCANNER_SPEC = {
  name: 'scanner',
  description: 'Lists files',
  system_prompt: 'You only list files.',
  tools: ['ls', 'task', 'delegate', 'nope'],
  model: 'scripted:scanner',
};
