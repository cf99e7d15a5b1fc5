import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import OpenAI from 'openai-v7';
import type { AgentSession } from 'openai-v7/resources/beta/agents/agents';
import { afterAll, beforeAll } from 'vitest';
import type { User } from '../../src/core/records/user.js';
import { eventually } from './eventually.js';
import { startTestServer, type TestServer } from './start-test-server.js';

const SCENARIOS: Record<string, string> = {
  echo: `
rules:
  - steps:
      - text: "Let me note that."
        tool_calls:
          - name: write_file
            args: { path: "note.md", content: "{{input}}" }
      - text: "Noted: {{input}}"
`,
  slow: `
rules:
  - steps:
      - text: "Thinking"
        tool_calls:
          - name: ls
            args: {}
      - delay_ms: 600000
        text: "This never arrives"
`,
  approver: `
rules:
  - steps:
      - text: "Writing."
        tool_calls:
          - name: write_file
            args: { path: "a.md", content: "x" }
      - text: "Done."
`,
  asker: `
rules:
  - steps:
      - text: "One question first."
        tool_calls:
          - name: ask_user_question
            args: { questions: [{ question: "Which format?", options: [list, prose] }] }
      - text: "Done: {{last_tool_result}}"
`,
};

export interface AgentsApiWorld {
  server: TestServer;
  alice: { user: User; token: string };
  bob: { user: User; token: string };
  /** The official openai v7 client as alice. */
  client: OpenAI;
  clientFor(token: string): OpenAI;
  /** Alice's agent ids by slug: echo, slow, approver, asker; and bob's private agent. */
  agentIds: Record<string, string>;
}

/**
 * A real server whose scenario folder holds the demo scenarios (the `assistant` and its team) and the ones
 * above, with alice's agents echo, slow, approver, asker and bob's private agent; set up before the file's
 * tests, closed after them.
 */
export function useAgentsApiWorld(): AgentsApiWorld {
  let scenarioDir = '';
  const world = {
    agentIds: {},
    clientFor: (token: string) =>
      new OpenAI({ apiKey: token, baseURL: `${world.server.url}/v1`, maxRetries: 0 }),
  } as AgentsApiWorld;
  beforeAll(async () => {
    scenarioDir = mkdtempSync(path.join(os.tmpdir(), 'troupe-agents-api-scenarios-'));
    cpSync(path.resolve(import.meta.dirname, '../../scenarios'), scenarioDir, { recursive: true });
    for (const [name, body] of Object.entries(SCENARIOS))
      writeFileSync(path.join(scenarioDir, `${name}.yaml`), body);
    world.server = await startTestServer({ scenarioDir });
    const { auth, agents } = world.server.troupe;
    world.alice = await auth.createUserWithToken('alice', 'member', 'agents-api');
    world.bob = await auth.createUserWithToken('bob', 'member', 'agents-api');
    const trusted = { tools: ['write_file', 'ls'], tool_approval_mode: 'always_trust' as const };
    const configs = {
      echo: { model: 'scripted:echo', ...trusted },
      slow: { model: 'scripted:slow', ...trusted },
      approver: { model: 'scripted:approver', tools: ['write_file'], tool_approval_mode: 'default' as const },
      asker: { model: 'scripted:asker', tools: ['ask_user_question'] },
    };
    for (const [slug, config] of Object.entries(configs)) {
      const agent = await agents.create(world.alice.user, { name: slug, slug, config });
      world.agentIds[slug] = agent.id;
    }
    const bobs = await agents.create(world.bob.user, {
      name: 'Bob private',
      slug: 'bob-private',
      config: { model: 'scripted:echo' },
    });
    world.agentIds['bob-private'] = bobs.id;
    world.client = world.clientFor(world.alice.token);
  });
  afterAll(async () => {
    await world.server?.close();
    if (scenarioDir) rmSync(scenarioDir, { recursive: true, force: true });
  });
  return world;
}

/** Retrieves the session until it has `status` (a turn runs on a worker, after the request answered). */
export function sessionWith(
  client: OpenAI,
  sessionId: string,
  status: AgentSession['status'],
  timeoutMs = 15_000,
): Promise<AgentSession> {
  return eventually(`session ${sessionId} to be ${status}`, timeoutMs, async () => {
    const session = await client.beta.agents.sessions.retrieve(sessionId);
    return session.status === status ? session : undefined;
  });
}

export async function apiError(promise: Promise<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof OpenAI.APIError) return error;
    throw error;
  }
  throw new Error('expected an API error');
}
