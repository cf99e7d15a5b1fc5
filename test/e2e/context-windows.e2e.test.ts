import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUMMARY_HEADING } from '../../src/core/thread/compaction-summary.js';
import type { RunEvent } from '../../src/core/records/run-event.js';
import { CONTINUE_PROMPT } from '../../src/runtime/model-gateway/continue-cut-answer.js';
import { SUMMARISER_PROMPT } from '../../src/runtime/model-gateway/summarise-turns.js';
import {
  defaultUsage,
  type FakeModelResponse,
  type RecordedRequest,
} from '../helpers/models/fake-model-server.js';
import { startModelFaultWorld, type ModelFaultWorld } from '../helpers/model-fault-world.js';
import { startTestServer } from '../helpers/start-test-server.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';

/**
 * Conversations that outlive the window (issue 34, items 1, 2 and 5), over real HTTP against the fake
 * OpenAI and Anthropic servers with a ~4k-token window that refuse longer prompts in the providers' own
 * words: 1.5 kB turns go on for 30 turns, a subagent's thread that overflows is compacted the same way, an
 * answer the output limit cut is continued (or fails `output_truncated`), and a tool call it cut is answered.
 */
let world: ModelFaultWorld;

beforeAll(async () => {
  world = await startModelFaultWorld();
  // The summariser's requests carry no role: they get a short summary.
  world.script('unknown', [], () => ({
    text: 'Summary: the user sent long notes; the agent acknowledged each.',
  }));
}, 60_000);
afterAll(async () => {
  await world?.close();
});

const WINDOW = 4096;

/** The fake's count of a request (the JSON of its messages and system prompt, four characters a token). */
const tokensOf = (request: RecordedRequest) => defaultUsage(request.body, {}).inputTokens;

const isOpenAi = (request: RecordedRequest) => request.path.endsWith('/chat/completions');

/** The provider's refusal of a prompt over WINDOW, in its exact wording. */
function overflow(request: RecordedRequest): FakeModelResponse | undefined {
  const tokens = tokensOf(request);
  if (tokens <= WINDOW) return undefined;
  if (isOpenAi(request)) {
    return {
      error: {
        status: 400,
        type: 'invalid_request_error',
        code: 'context_length_exceeded',
        message: `This model's maximum context length is ${WINDOW} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`,
      },
    };
  }
  return {
    error: {
      status: 400,
      type: 'invalid_request_error',
      message: `prompt is too long: ${tokens} tokens > ${WINDOW} maximum`,
    },
  };
}

const isSummariser = (request: RecordedRequest) =>
  JSON.stringify(request.body).includes(SUMMARISER_PROMPT.slice(0, 40));

async function json<T>(response: Response): Promise<T> {
  const body = (await response.json()) as T;
  if (!response.ok) throw new Error(`HTTP ${response.status}: ${JSON.stringify(body)}`);
  return body;
}

async function agentId(slug: string): Promise<string> {
  const { agents } = await json<{ agents: { id: string; slug: string }[] }>(
    await world.server.api('/api/agent?include_subagents=true'),
  );
  const agent = agents.find((candidate) => candidate.slug === slug);
  if (!agent) throw new Error(`no agent ${slug}`);
  return agent.id;
}

async function say(conversationId: string, content: string): Promise<string> {
  const { run } = await json<{ run: { id: string } }>(
    await world.server.api(`/api/conversations/${conversationId}/messages`, {
      method: 'POST',
      body: JSON.stringify({ content }),
    }),
  );
  return run.id;
}

const note = (turn: number) => `Note ${turn}: ${'lorem ipsum dolor sit amet '.repeat(56)}`.slice(0, 1500);

async function longConversation(slug: string, turns: number) {
  const conversationId = (
    await json<{ conversation: { id: string } }>(
      await world.server.api('/api/conversations', {
        method: 'POST',
        body: JSON.stringify({ agent_id: await agentId(slug) }),
      }),
    )
  ).conversation.id;
  const events: RunEvent[] = [];
  for (let turn = 1; turn <= turns; turn++) {
    const runId = await say(conversationId, note(turn));
    const run = await world.awaitRun(runId);
    expect(run.status, `turn ${turn}: ${JSON.stringify(run.error)}`).toBe('completed');
    events.push(...(await world.events(runId)));
  }
  const { messages } = await json<{ messages: { message: { role: string; content: unknown } }[] }>(
    await world.server.api(`/api/conversations/${conversationId}/messages`),
  );
  return { events, messages };
}

function answerLongly(role: string) {
  world.script(
    role,
    [],
    (request) => overflow(request) ?? { text: `Noted. ${'ack '.repeat(370)}`.slice(0, 1500) },
  );
}

describe('a conversation outlives the window', () => {
  it('OpenAI: 30 turns of 1.5 kB against a 4k window the agent does not know, every turn completing', async () => {
    answerLongly('chatty');
    await world.createAgent('chatty', { tools: ['read_file'] });
    const { events, messages } = await longConversation('chatty', 30);
    const compactions = events.filter((event) => event.type === 'context_compacted');
    expect(compactions.length).toBeGreaterThanOrEqual(3);
    // The window is learnt from the provider's refusal: each overflow is compacted and retried once.
    expect(compactions.some((event) => event.payload.trigger === 'overflow')).toBe(true);
    for (const event of compactions) {
      expect(event.payload.tokens_after).toBeLessThan(event.payload.tokens_before);
      expect(event.payload.model).toBe('openai:gpt-test');
    }
    // Nothing is lost: every user turn is still in the thread, beside the summaries.
    const users = messages.filter((entry) => entry.message.role === 'user');
    expect(users.filter((entry) => String(entry.message.content).startsWith('Note ')).length).toBe(30);
    expect(users.filter((entry) => String(entry.message.content).startsWith(SUMMARY_HEADING)).length).toBe(
      compactions.length,
    );
    const served = world.requestsOf('chatty');
    // A refused prompt is followed by at most one more refusal before a turn's call succeeds.
    const summaries = world.openai.requests.filter(isSummariser);
    expect(summaries.length).toBeGreaterThanOrEqual(compactions.length);
    expect(served.length).toBeGreaterThan(30);
  }, 240_000);

  it('Anthropic: 30 turns against a declared 4k window compact before the call, with no refusal', async () => {
    answerLongly('claudy');
    await world.createAgent('claudy', {
      model: 'anthropic:claude-test',
      context_window: WINDOW,
      tools: ['read_file'],
    });
    const { events } = await longConversation('claudy', 30);
    const compactions = events.filter((event) => event.type === 'context_compacted');
    expect(compactions.length).toBeGreaterThanOrEqual(3);
    expect(compactions.every((event) => event.payload.trigger === 'threshold')).toBe(true);
    const refused = world.requestsOf('claudy').filter((request) => tokensOf(request) > WINDOW);
    expect(refused).toHaveLength(0);
    // The prompt after a compaction starts with the summary.
    const last = world.requestsOf('claudy').at(-1);
    expect(JSON.stringify(last?.body.messages)).toContain('Summary of the earlier part');
  }, 240_000);

  it('Anthropic: "prompt is too long" from a window the agent does not know compacts and retries once', async () => {
    answerLongly('terse');
    await world.createAgent('terse', { model: 'anthropic:claude-test', tools: ['read_file'] });
    const { events } = await longConversation('terse', 12);
    const compactions = events.filter((event) => event.type === 'context_compacted');
    expect(compactions.some((event) => event.payload.trigger === 'overflow')).toBe(true);
    const refused = world.requestsOf('terse').filter((request) => tokensOf(request) > WINDOW);
    // One refusal per compaction at most: each is followed by a prompt that fits.
    expect(refused.length).toBeLessThanOrEqual(compactions.length);
  }, 240_000);

  it("a subagent's thread that overflows is compacted like any other", async () => {
    const created = await world.server.api('/api/agent', {
      method: 'POST',
      body: JSON.stringify({
        name: 'filler',
        slug: 'filler',
        description: 'Fills its context',
        backend: 'subagent',
        is_subagent: true,
        config: { model: 'openai:gpt-test', system_prompt: 'ROLE:filler' },
      }),
    });
    expect(created.status).toBe(201);
    let steps = 0;
    world.script('filler', [], (request) => {
      const refused = overflow(request);
      if (refused) return refused;
      steps += 1;
      // Six turns, each a call whose 6 kB of arguments stay in the thread, then the answer.
      return steps <= 6
        ? { toolCalls: [{ name: 'no_such_tool', args: { note: 'filler text '.repeat(500) } }] }
        : { text: 'filler is done' };
    });
    world.script('leader', [
      { toolCalls: [{ name: 'task', args: { subagent_slug: 'filler', description: 'Fill your context' } }] },
    ]);
    await world.createAgent('leader', { subagents: ['filler'] });
    const { runId } = await world.chat('leader');
    const run = await world.awaitRun(runId);
    expect(run.status).toBe('completed');
    const [child] = await world.server.troupe.storage.runs.listChildren(runId);
    expect(child?.status).toBe('completed');
    const childEvents = await world.events(child?.id ?? '');
    expect(childEvents.some((event) => event.type === 'context_compacted')).toBe(true);
    expect(childEvents.filter((event) => event.type === 'tool_result')).toHaveLength(6);
  }, 120_000);
});

describe('long answers', () => {
  it('an answer the output limit cut is continued into one answer', async () => {
    world.script('verbose', [{ text: 'The first half, ', truncated: true }, { text: 'and the second.' }]);
    await world.createAgent('verbose', { model: 'anthropic:claude-test' });
    const { runId } = await world.chat('verbose', 'Tell me everything');
    const run = await world.awaitRun(runId);
    expect(run.status).toBe('completed');
    expect(run.output).toBe('The first half, and the second.');
    const [, second] = world.requestsOf('verbose');
    expect(JSON.stringify(second?.body.messages)).toContain(CONTINUE_PROMPT);
    expect(run.usage?.model_calls).toBe(2);
  });

  it('an answer still cut after the continuations fails output_truncated and keeps what came', async () => {
    world.script('endless', [], () => ({ text: 'more… ', truncated: true }));
    await world.createAgent('endless', { max_continuations: 1 });
    const { runId, conversationId } = await world.chat('endless');
    const run = await world.awaitRun(runId);
    expect(run.status).toBe('failed');
    expect(run.error?.type).toBe('output_truncated');
    // What streamed stays in the thread as the run's partial answer (docs/runs.md#ending-a-run).
    const { messages } = await json<{ messages: { message: { role: string; content: unknown } }[] }>(
      await world.server.api(`/api/conversations/${conversationId}/messages`),
    );
    expect(messages.at(-1)?.message).toMatchObject({
      role: 'assistant',
      content: [{ type: 'text', text: 'more… more… ' }],
    });
    expect(world.requestsOf('endless')).toHaveLength(2);
  });

  it.each(['openai:gpt-test', 'anthropic:claude-test'])(
    '%s: a tool call the output limit cut gets an error result saying so, and the run goes on',
    async (model) => {
      const role = model.startsWith('openai') ? 'cutopenai' : 'cutanthropic';
      world.script(role, [
        {
          toolCalls: [{ name: 'write_file', args: { path: 'big.txt', content: 'lorem '.repeat(70) } }],
          truncated: true,
        },
        { text: 'I will write it in parts.' },
      ]);
      await world.createAgent(role, { model, tool_approval_mode: 'always_trust' });
      const { runId } = await world.chat(role);
      const run = await world.awaitRun(runId);
      expect(run.status).toBe('completed');
      const result = (await world.events(runId)).find((event) => event.type === 'tool_result');
      expect(result?.payload).toMatchObject({ name: 'write_file', is_error: true });
      expect(String(result?.payload.output)).toContain('cut off by the output token limit');
      expect(String(result?.payload.output)).not.toContain('Invalid arguments');
    },
  );
});

describe('offline, with the scripted provider', () => {
  it('a scenario that declares a small window is compacted like a real model, every turn completing', async () => {
    const scenarioDir = mkdtempSync(path.join(os.tmpdir(), 'troupe-window-'));
    writeFileSync(
      path.join(scenarioDir, 'small.yaml'),
      stringify({
        context_window: 2000,
        max_output_tokens: 200,
        rules: [
          {
            when: { contains: 'Conversation to summarise' },
            steps: [{ text: 'Summary: notes were taken.' }],
          },
          { steps: [{ text: `Noted: {{input}}` }] },
        ],
      }),
    );
    const server = await startTestServer({ scenarioDir });
    try {
      const created = await server.api('/api/agent', {
        method: 'POST',
        body: JSON.stringify({
          slug: 'notary',
          name: 'notary',
          config: { model: 'scripted:small', tools: [] },
        }),
      });
      expect(created.status).toBe(201);
      const { agent } = (await created.json()) as { agent: { id: string } };
      let conversationId = '';
      let compactions = 0;
      for (let turn = 1; turn <= 12; turn++) {
        let runId: string;
        if (turn === 1) ({ conversationId, runId } = await server.chat(note(turn), agent.id));
        else {
          const response = await server.api(`/api/conversations/${conversationId}/messages`, {
            method: 'POST',
            body: JSON.stringify({ content: note(turn) }),
          });
          runId = ((await response.json()) as { run: { id: string } }).run.id;
        }
        const awaited = await server.api(`/api/agent/runs/${runId}/await?timeout_ms=30000`);
        const { run } = (await awaited.json()) as { run: { status: string; output: string } };
        expect(run.status).toBe('completed');
        expect(run.output).toBe(`Noted: ${note(turn).trim()}`);
        const events = await server.troupe.storage.events.list(runId, 0, 1000);
        compactions += events.filter((event) => event.type === 'context_compacted').length;
      }
      expect(compactions).toBeGreaterThanOrEqual(2);
    } finally {
      await server.close();
    }
  }, 120_000);
});
