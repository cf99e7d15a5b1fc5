import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/core/records/run-event.js';
import type { FakeModelResponse } from '../helpers/models/fake-model-server.js';
import { anthropicFaults, openaiFaults } from '../helpers/models/provider-faults.js';
import { startModelFaultWorld, type ModelFaultWorld } from '../helpers/model-fault-world.js';

/**
 * Every class of provider failure over real HTTP (issue 32): the real OpenAI and Anthropic adapters talk to
 * fake servers that play the providers' real errors and network faults; each retryable one is retried and
 * the run completes, each final one fails the run at once with the provider's message.
 */
let world: ModelFaultWorld;
let agents = 0;

beforeAll(async () => {
  world = await startModelFaultWorld();
}, 60_000);
afterAll(async () => {
  await world?.close();
});

const PROVIDERS = {
  openai: { spec: 'openai:gpt-test', faults: openaiFaults },
  anthropic: { spec: 'anthropic:claude-test', faults: anthropicFaults },
} as const;
type ProviderName = keyof typeof PROVIDERS;

/** A fresh agent on `provider` whose first request meets `first`, then answers `answer`. */
async function runMeeting(
  provider: ProviderName,
  replies: FakeModelResponse[],
  config: Record<string, unknown> = {},
) {
  agents += 1;
  const slug = `agent${agents}`;
  world.script(slug, replies, () => ({ text: 'The answer.', usage: { inputTokens: 7, outputTokens: 3 } }));
  await world.createAgent(slug, { model: PROVIDERS[provider].spec, ...config });
  const { runId } = await world.chat(slug);
  const run = await world.awaitRun(runId);
  const events = await world.events(runId);
  return { slug, run, events, requests: world.requestsOf(slug) };
}

const retries = (events: RunEvent[]) => events.filter((event) => event.type === 'model_retry');

describe.each(['openai', 'anthropic'] as const)('retryable failures against %s', (provider) => {
  const { faults } = PROVIDERS[provider];
  const cases: [string, FakeModelResponse, string, number?][] = [
    ['a 429 with Retry-After: 1', faults.rateLimited(1), 'rate_limited', 429],
    ['a 500', faults.serverError(), 'server_error', 500],
    [
      provider === 'openai' ? 'a 503 overloaded' : 'a 529 overloaded',
      faults.overloaded(),
      'overloaded',
      provider === 'openai' ? 503 : 529,
    ],
    ['a reset connection', { fault: { kind: 'reset' } }, 'connection'],
    [
      'a stream that stalls past the idle timeout',
      { text: 'never', fault: { kind: 'stall', afterChunks: 1, ms: 5000 } },
      'timeout',
    ],
  ];
  it.each(cases)('%s is retried and the run completes', async (_, fault, reason, status) => {
    const { run, events, requests } = await runMeeting(provider, [fault]);
    expect(run.status).toBe('completed');
    expect(run.output).toBe('The answer.');
    expect(requests).toHaveLength(2);
    const [retry] = retries(events);
    expect(retry?.payload).toMatchObject({
      attempt: 1,
      reason,
      model: PROVIDERS[provider].spec,
      ...(status !== undefined ? { status } : {}),
    });
    if (reason === 'rate_limited') {
      expect(retry?.payload.wait_ms).toBe(1000);
      expect((requests[1]?.at ?? 0) - (requests[0]?.at ?? 0)).toBeGreaterThanOrEqual(950);
    }
    // A failed attempt adds no usage: only the answer's tokens, one model call.
    expect(run.usage).toMatchObject({ input_tokens: 7, output_tokens: 3, model_calls: 1 });
  });

  it("the provider's error event mid-stream, and a stream cut mid-way: the partial text is discarded, never shown twice", async () => {
    const midStream =
      provider === 'openai'
        ? openaiFaults.serverErrorMidStream(3, 'A doomed first answer')
        : anthropicFaults.overloadedMidStream(5, 'A doomed first answer');
    const cut: FakeModelResponse = {
      text: 'Another doomed answer',
      fault: { kind: 'cut', afterChunks: provider === 'openai' ? 3 : 5 },
    };
    for (const fault of [midStream, cut]) {
      const { run, events, requests } = await runMeeting(provider, [fault]);
      expect(run.status).toBe('completed');
      expect(requests).toHaveLength(2);
      const [retry] = retries(events);
      expect(retry?.payload.reason).toBe(
        fault === cut ? 'stream_cut' : provider === 'openai' ? 'server_error' : 'overloaded',
      );
      const before = events
        .filter((event) => event.type === 'message_delta')
        .filter((event) => event.seq < (retry?.seq ?? 0));
      const discarded = before.map((event) => event.payload.text).join('');
      expect(discarded.length).toBeGreaterThan(0);
      expect(retry?.payload.discarded_chars).toBe(discarded.length);
      // What a consumer shows: every delta, less what model_retry told it to drop.
      const shown = events.reduce((text, event) => {
        if (event.type === 'message_delta') return text + String(event.payload.text);
        if (event.type === 'model_retry')
          return text.slice(0, text.length - Number(event.payload.discarded_chars));
        return text;
      }, '');
      expect(shown).toBe('The answer.');
      const messages = (await (
        await world.server.api(`/api/conversations/${await conversationOf(run.id)}/messages`)
      ).json()) as {
        messages: { message: { role: string; content: unknown } }[];
      };
      expect(JSON.stringify(messages.messages.filter((m) => m.message.role === 'assistant'))).not.toContain(
        'doomed',
      );
    }
  });
});

async function conversationOf(runId: string): Promise<string> {
  const run = await world.server.troupe.storage.runs.get(runId);
  if (!run) throw new Error(`no run ${runId}`);
  return run.conversation_id;
}

describe.each(['openai', 'anthropic'] as const)('final failures against %s', (provider) => {
  const { faults } = PROVIDERS[provider];
  it.each([
    ['401', faults.unauthorized(), 'model_call_failed'],
    ['404', faults.notFound(), 'model_call_failed'],
    ['a context overflow', faults.contextOverflow(), 'context_overflow'],
  ] as const)("%s fails the run at once with the provider's message", async (_, fault, type) => {
    const { run, events, requests } = await runMeeting(provider, [fault]);
    expect(requests).toHaveLength(1);
    expect(retries(events)).toEqual([]);
    expect(run.status).toBe('failed');
    expect(run.error?.type).toBe(type);
    expect(run.error?.message).toContain(
      `Model ${PROVIDERS[provider].spec} failed (HTTP ${fault.error?.status ?? ''})`,
    );
    expect(run.error?.message).toContain(fault.error?.message);
  });
});

describe('retry bounds and tool calls', () => {
  it('an exhausted quota is final even though it is a 429', async () => {
    const { run, requests } = await runMeeting('openai', [openaiFaults.insufficientQuota()]);
    expect(requests).toHaveLength(1);
    expect(run.error?.message).toContain('You exceeded your current quota');
  });

  it("stops after the agent's max_retries and says so", async () => {
    const failing = Array.from({ length: 5 }, () => openaiFaults.serverError(502));
    const { run, events, requests } = await runMeeting('openai', failing, {
      model_retry: { max_retries: 2 },
    });
    expect(requests).toHaveLength(3);
    expect(retries(events).map((event) => event.payload.attempt)).toEqual([1, 2]);
    expect(run.status).toBe('failed');
    expect(run.error?.message).toMatch(
      /^Model openai:gpt-test failed \(HTTP 502\) after 2 retries: The server had an error/,
    );
  });

  it('a provider asking for a longer wait than max_wait_ms ends the retries at once, and its next call too', async () => {
    // Its own provider key (`openai-compatible:aside`), so the long pause holds no other test's calls.
    const aside = { model: 'openai-compatible:aside:gpt-test', model_retry: { max_wait_ms: 5000 } };
    const { run, requests } = await runMeeting('openai', [openaiFaults.rateLimited(120)], aside);
    expect(requests).toHaveLength(1);
    expect(run.error?.message).toContain('it asked to wait 120 s, longer than this server waits');
    // The provider told every caller to wait: the next call is refused without a request.
    const next = await runMeeting('openai', [], aside);
    expect(next.requests).toHaveLength(0);
    expect(next.run.error?.message).toContain('openai-compatible:aside asked every call to wait');
  });

  it('retries only the model call, never a tool call: the tool ran once and its result was sent once', async () => {
    agents += 1;
    const slug = `agent${agents}`;
    world.script(slug, [
      { toolCalls: [{ name: 'write_file', args: { path: 'once.txt', content: 'written once' } }] },
      openaiFaults.serverError(503),
    ]);
    await world.createAgent(slug, { tools: ['write_file'], tool_approval_mode: 'always_trust' });
    const { runId } = await world.chat(slug);
    const run = await world.awaitRun(runId);
    expect(run.status).toBe('completed');
    const events = await world.events(runId);
    expect(events.filter((event) => event.type === 'tool_call')).toHaveLength(1);
    expect(events.filter((event) => event.type === 'tool_result')).toHaveLength(1);
    const requests = world.requestsOf(slug);
    expect(requests).toHaveLength(3);
    for (const request of requests.slice(1)) {
      const messages = request.body.messages as { role: string }[];
      expect(messages.filter((message) => message.role === 'tool')).toHaveLength(1);
    }
  });

  it('a stream cut after the model emitted a tool call is final (Anthropic emits a call as its block ends)', async () => {
    const { run, requests } = await runMeeting('anthropic', [
      // message_start, ping, the tool block's start, three input deltas, its stop: then the cut.
      { toolCalls: [{ name: 'read_file', args: { path: 'x' } }], fault: { kind: 'cut', afterChunks: 7 } },
    ]);
    expect(requests).toHaveLength(1);
    expect(run.status).toBe('failed');
    expect(run.error?.type).toBe('model_call_failed');
  });

  it('a stream cut inside a tool call the model had not finished is retried: no call was emitted', async () => {
    // OpenAI's adapter emits a call once the stream says it is complete; this cut comes before that.
    const { run, requests } = await runMeeting('openai', [
      { toolCalls: [{ name: 'read_file', args: { path: 'x' } }], fault: { kind: 'cut', afterChunks: 4 } },
    ]);
    expect(requests).toHaveLength(2);
    expect(run.status).toBe('completed');
  });
});

describe('the OpenAI-compatible API over a retried call', () => {
  it("answers a non-streaming completion with the retry's text only, not the failed attempt's too", async () => {
    agents += 1;
    const slug = `agent${agents}`;
    world.script(slug, [{ text: 'A doomed beginning', fault: { kind: 'cut', afterChunks: 3 } }], () => ({
      text: 'The answer.',
    }));
    await world.createAgent(slug);
    const response = await world.server.api('/v1/chat/completions', {
      method: 'POST',
      body: JSON.stringify({ model: slug, messages: [{ role: 'user', content: 'Go' }] }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { choices: { message: { content: string } }[] };
    expect(body.choices[0]?.message.content).toBe('The answer.');
    expect(world.requestsOf(slug)).toHaveLength(2);
  });
});
