import { describe, expect, it } from 'vitest';
import { TroupeError, isTroupeError } from '../../core/errors.js';
import type { ModelCallRequest, ModelCallResult } from '../../core/ports/agent-middleware.js';
import type { ResolvedModel } from '../../core/ports/model-provider.js';
import type { Agent } from '../../core/records/agent.js';
import type { ChatMessage } from '../../core/thread/chat-message.js';
import { compactionMarkerOf, promptView } from '../../core/thread/compaction-summary.js';
import type { PendingEvent } from '../events/run-emitter.js';
import type { StepMessages } from '../../core/ports/storage.js';
import { createContextWindowMiddleware } from './context-window-middleware.js';
import { CONTINUE_PROMPT } from './continue-cut-answer.js';
import { SUMMARISER_PROMPT } from './summarise-turns.js';

/** A scripted-provider model (counted as characters / 4) that declares `window` tokens. */
function model(window: number, name = 'small'): ResolvedModel {
  return {
    spec: `scripted:${name}`,
    provider: 'scripted',
    label: `scripted:${name}`,
    limitKey: { provider: 'scripted', model: name },
    stream: () => {
      throw new Error('not called: next() answers');
    },
    declaredWindow: () => Promise.resolve({ context_window: window, max_output_tokens: 100 }),
  };
}

function setup(config: Agent['config'] = {}, window = 1000) {
  const commits: { events: PendingEvent[]; messages?: StepMessages }[] = [];
  const layer = createContextWindowMiddleware({
    agent: { config } as Agent,
    emitter: {
      commit: (events, _alongside, messages) => {
        commits.push({ events, ...(messages ? { messages } : {}) });
        return Promise.resolve([]);
      },
    },
    models: { resolve: () => model(100_000, 'big') },
    settings: { compactAt: 0.8, maxContinuations: 2 },
  });
  const loop: ChatMessage[] = [];
  const request = (): ModelCallRequest =>
    ({
      step: 1,
      system: 'Be useful.',
      messages: loop,
      tools: [],
      model: model(window),
      abortSignal: new AbortController().signal,
    }) as unknown as ModelCallRequest;
  return { layer, commits, loop, request };
}

const turn = (n: number): ChatMessage[] => [
  { role: 'user', content: `question ${n} ${'q'.repeat(400)}` },
  { role: 'assistant', content: [{ type: 'text', text: `answer ${n} ${'a'.repeat(400)}` }] },
];

const answer = (text: string, finishReason = 'stop'): ModelCallResult => ({
  text,
  toolCalls: [],
  usage: { input_tokens: 0, output_tokens: 1 },
  finishReason,
});

/** Records what each call was sent; summaries get "SUMMARY", others `reply(request)`. */
function recorder(reply: (request: ModelCallRequest) => ModelCallResult | Promise<ModelCallResult>) {
  const sent: ModelCallRequest[] = [];
  const next = async (request: ModelCallRequest) => {
    sent.push(request);
    if (request.system === SUMMARISER_PROMPT) return answer('SUMMARY');
    return reply(request);
  };
  return { sent, next };
}

describe('context window layer', () => {
  it('leaves a prompt under the threshold alone', async () => {
    const { layer, loop, request, commits } = setup();
    loop.push(...turn(1));
    const { sent, next } = recorder(() => answer('fine'));
    await layer.wrapModelCall?.(request(), next);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.messages).toEqual(loop);
    expect(commits).toHaveLength(0);
  });

  it('summarises the oldest turns past the threshold, stores the summary and prompts from it on', async () => {
    // 1000-token window, 100 for the answer: threshold 720 tokens; each turn is ~210.
    const { layer, loop, request, commits } = setup({ compaction_model: 'scripted:big' });
    for (let n = 1; n <= 4; n++) loop.push(...turn(n));
    loop.push({ role: 'user', content: 'and now?' });
    const { sent, next } = recorder(() => answer('done'));
    await layer.wrapModelCall?.(request(), next);
    expect(sent.map((call) => call.system)).toEqual([SUMMARISER_PROMPT, 'Be useful.']);
    expect(sent[0]?.silent).toBe(true);
    expect(sent[0]?.tools).toEqual([]);
    const [commit] = commits;
    const event = commit?.events[0];
    expect(event?.type).toBe('context_compacted');
    const summary = commit?.messages?.messages[0];
    const marker = summary && compactionMarkerOf(summary);
    expect(marker?.summarised).toBeGreaterThan(0);
    expect(event?.payload).toMatchObject({
      step: 1,
      trigger: 'threshold',
      messages_summarised: marker?.summarised,
      model: 'scripted:big',
      context_window: 1000,
    });
    const payload = event?.payload as { tokens_before: number; tokens_after: number };
    expect(payload.tokens_after).toBeLessThan(payload.tokens_before);
    // The call read the summary and the kept tail; the thread's view gives the same prompt back.
    const prompt = sent[1]?.messages ?? [];
    expect(prompt[0]).toBe(summary);
    expect(prompt.at(-1)).toEqual({ role: 'user', content: 'and now?' });
    expect(promptView([...loop, summary as ChatMessage])).toEqual(prompt);
    // The next call extends that prompt and compacts nothing.
    loop.push(
      { role: 'assistant', content: [{ type: 'text', text: 'done' }] },
      { role: 'user', content: 'ok' },
    );
    await layer.wrapModelCall?.(request(), next);
    expect(commits).toHaveLength(1);
    expect(sent.at(-1)?.messages[0]).toBe(summary);
    expect(sent.at(-1)?.messages.at(-1)).toEqual({ role: 'user', content: 'ok' });
  });

  it("summarises in chunks, each with the summary so far, what does not fit the summariser's window", async () => {
    const { layer, loop, request, commits } = setup();
    for (let n = 1; n <= 4; n++) loop.push(...turn(n));
    loop.push({ role: 'user', content: 'and now?' });
    const { sent, next } = recorder(() => answer('done'));
    await layer.wrapModelCall?.(request(), next);
    const summaries = sent.filter((call) => call.system === SUMMARISER_PROMPT);
    expect(summaries.length).toBeGreaterThan(1);
    for (const call of summaries.slice(1)) {
      expect(JSON.stringify(call.messages)).toContain('Summary of what came before this part:\\nSUMMARY');
    }
    expect(commits[0]?.events[0]?.payload).toMatchObject({ model: 'scripted:small' });
  });

  it('compacts and retries once on a context overflow, and a second overflow fails the call', async () => {
    const { layer, loop, request, commits } = setup({}, 100_000);
    for (let n = 1; n <= 4; n++) loop.push(...turn(n));
    loop.push({ role: 'user', content: 'and now?' });
    const refuse = () => {
      throw new TroupeError('context_overflow', 'prompt is too long: 900 tokens > 600 maximum');
    };
    let calls = 0;
    const { sent, next } = recorder(() => (calls++ === 0 ? refuse() : answer('fits')));
    const result = await layer.wrapModelCall?.(request(), next);
    expect(result?.text).toBe('fits');
    expect(commits[0]?.events[0]?.payload).toMatchObject({ trigger: 'overflow' });
    expect(sent.filter((call) => call.system === 'Be useful.')).toHaveLength(2);

    const stubborn = recorder(refuse);
    const thrown = await layer.wrapModelCall?.(request(), stubborn.next).catch((error: unknown) => error);
    expect(isTroupeError(thrown, 'context_overflow')).toBe(true);
  });

  it('continues an answer the output limit cut, and fails output_truncated past the bound', async () => {
    const { layer, loop, request } = setup({ max_continuations: 1 });
    loop.push({ role: 'user', content: 'Tell me all.' });
    const pieces = [answer('one, ', 'length'), answer('two.')];
    const { sent, next } = recorder(() => pieces.shift() ?? answer('?'));
    const result = await layer.wrapModelCall?.(request(), next);
    expect(result?.text).toBe('one, two.');
    expect(result?.usage.output_tokens).toBe(2);
    expect(sent[1]?.messages.slice(-2)).toEqual([
      { role: 'assistant', content: 'one, ' },
      { role: 'user', content: CONTINUE_PROMPT },
    ]);

    const endless = recorder(() => answer('more ', 'length'));
    const thrown = await layer.wrapModelCall?.(request(), endless.next).catch((error: unknown) => error);
    expect(isTroupeError(thrown, 'output_truncated')).toBe(true);
    expect(endless.sent).toHaveLength(2);
  });

  it('marks a tool call the output limit cut, and leaves whole ones alone', async () => {
    const { layer, loop, request } = setup();
    loop.push({ role: 'user', content: 'Write it.' });
    const { next } = recorder(() => ({
      ...answer('', 'length'),
      toolCalls: [
        { toolCallId: 'a', toolName: 'ls', input: {} },
        { toolCallId: 'b', toolName: 'write_file', input: '{"path":"x', invalidInput: 'JSON parse error' },
      ],
    }));
    const result = await layer.wrapModelCall?.(request(), next);
    expect(result?.toolCalls.map((call) => call.cutOff === true)).toEqual([false, true]);
  });
});
