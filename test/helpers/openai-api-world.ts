import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import { afterAll, beforeAll } from 'vitest';
import type { User } from '../../src/core/records/user.js';
import { startTestServer, type TestServer } from './start-test-server.js';

const SCENARIOS: Record<string, string> = {
  // Two steps around a tool call: the completion carries the text of both, not the tool activity.
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

export interface OpenAiApiWorld {
  server: TestServer;
  alice: { user: User; token: string };
  bob: { user: User; token: string };
  /** The official openai client as alice. */
  client: OpenAI;
  clientFor(token: string): OpenAI;
}

/**
 * A server whose scenario folder holds the scenarios above, with alice's agents echo, slow, approver, asker, broken
 * and the subagent alice-helper, and bob's private agent; set up before the file's tests, closed after them.
 */
export function useOpenAiApiWorld(): OpenAiApiWorld {
  let scenarioDir = '';
  const world = {
    clientFor: (token: string) =>
      new OpenAI({ apiKey: token, baseURL: `${world.server.url}/v1`, maxRetries: 0 }),
  } as OpenAiApiWorld;
  beforeAll(async () => {
    scenarioDir = mkdtempSync(path.join(os.tmpdir(), 'troupe-openai-scenarios-'));
    for (const [name, body] of Object.entries(SCENARIOS))
      writeFileSync(path.join(scenarioDir, `${name}.yaml`), body);
    world.server = await startTestServer({ scenarioDir });
    const { auth, agents } = world.server.troupe;
    world.alice = await auth.createUserWithToken('alice', 'member', 'openai');
    world.bob = await auth.createUserWithToken('bob', 'member', 'openai');
    const trusted = { tools: ['write_file', 'ls'], tool_approval_mode: 'always_trust' as const };
    await agents.create(world.alice.user, {
      name: 'Echo',
      slug: 'echo',
      config: { model: 'scripted:echo', ...trusted },
    });
    await agents.create(world.alice.user, {
      name: 'Slow',
      slug: 'slow',
      config: { model: 'scripted:slow', ...trusted },
    });
    await agents.create(world.alice.user, {
      name: 'Approver',
      slug: 'approver',
      config: { model: 'scripted:approver', tools: ['write_file'], tool_approval_mode: 'default' },
    });
    await agents.create(world.alice.user, {
      name: 'Asker',
      slug: 'asker',
      config: { model: 'scripted:asker', tools: ['ask_user_question'] },
    });
    await agents.create(world.alice.user, {
      name: 'Broken',
      slug: 'broken',
      config: { model: 'scripted:no-such-scenario' },
    });
    await agents.create(world.alice.user, {
      name: 'Helper',
      slug: 'alice-helper',
      backend: 'subagent',
      config: { model: 'scripted:helper' },
    });
    await agents.create(world.bob.user, {
      name: 'Bob private',
      slug: 'bob-private',
      config: { model: 'scripted:echo' },
    });
    world.client = world.clientFor(world.alice.token);
  });
  afterAll(async () => {
    await world.server?.close();
    if (scenarioDir) rmSync(scenarioDir, { recursive: true, force: true });
  });
  return world;
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
