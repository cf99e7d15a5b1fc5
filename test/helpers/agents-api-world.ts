import OpenAI from 'openai-v7';
import type { AgentSession } from 'openai-v7/resources/beta/agents/agents';
import { eventually } from './eventually.js';
import {
  API_AGENTS,
  API_SCENARIOS,
  useScriptedAgentsWorld,
  type ScriptedAgentsWorld,
} from './scripted-agents-world.js';

const SCENARIOS: Record<string, string> = {
  ...API_SCENARIOS,
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

export interface AgentsApiWorld extends ScriptedAgentsWorld {
  /** The official openai v7 client as alice. */
  client: OpenAI;
  clientFor(token: string): OpenAI;
}

/**
 * A real server whose scenario folder holds the demo scenarios (the `assistant` and its team) and the ones
 * above, with alice's agents echo, slow, approver, asker and bob's private agent.
 */
export function useAgentsApiWorld(): AgentsApiWorld {
  const world = {
    clientFor: (token: string) =>
      new OpenAI({ apiKey: token, baseURL: `${world.server.url}/v1`, maxRetries: 0 }),
  } as AgentsApiWorld;
  const agents = Object.fromEntries(Object.entries(API_AGENTS).map(([slug, config]) => [slug, { config }]));
  return useScriptedAgentsWorld(
    world,
    { label: 'agents-api', scenarios: SCENARIOS, agents, withDemoScenarios: true },
    () => {
      world.client = world.clientFor(world.alice.token);
    },
  );
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
