import OpenAI from 'openai';
import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import {
  API_AGENTS,
  API_SCENARIOS,
  useScriptedAgentsWorld,
  type ScriptedAgentSpec,
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
      - text: "Done."
`,
  helper: `
rules:
  - steps:
      - text: "helping"
`,
};

export interface Extended {
  conversation_id: string;
  run_id: string;
}

export interface OpenAiApiWorld extends ScriptedAgentsWorld {
  /** The official openai client as alice. */
  client: OpenAI;
  clientFor(token: string): OpenAI;
}

/**
 * A server whose scenario folder holds the scenarios above, with alice's agents echo, slow, approver, asker, broken
 * and the subagent alice-helper, and bob's private agent. The echo scenario is two steps around a tool call: the
 * completion carries the text of both, not the tool activity.
 */
export function useOpenAiApiWorld(): OpenAiApiWorld {
  const world = {
    clientFor: (token: string) =>
      new OpenAI({ apiKey: token, baseURL: `${world.server.url}/v1`, maxRetries: 0 }),
  } as OpenAiApiWorld;
  const names: Record<string, string> = { echo: 'Echo', slow: 'Slow', approver: 'Approver', asker: 'Asker' };
  const agents: Record<string, ScriptedAgentSpec> = {
    ...Object.fromEntries(
      Object.entries(API_AGENTS).map(([slug, config]) => [slug, { name: names[slug], config }]),
    ),
    broken: { name: 'Broken', config: { model: 'scripted:no-such-scenario' } },
    'alice-helper': { name: 'Helper', backend: 'subagent', config: { model: 'scripted:helper' } },
  };
  return useScriptedAgentsWorld(world, { label: 'openai', scenarios: SCENARIOS, agents }, () => {
    world.client = world.clientFor(world.alice.token);
  });
}

/** `conversation_id` is Troupe's extension field: the typed client does not know it. */
export function withConversation(params: ChatCompletionCreateParamsNonStreaming, conversationId: string) {
  return { ...params, conversation_id: conversationId } as ChatCompletionCreateParamsNonStreaming;
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
