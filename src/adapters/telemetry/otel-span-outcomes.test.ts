import { SpanStatusCode } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { HELPER, MAIN, only, recordSpans, runSpans } from '../../../test/helpers/record-spans.js';
import { createRuntimeHarness, type RuntimeHarness } from '../../../test/helpers/create-runtime-harness.js';
import { DEFAULT_MODEL_CALL_SETTINGS } from '../../model-call-settings.js';
import { startFakeAnthropicServer } from '../../../test/helpers/models/fake-anthropic-server.js';
import { startFakeOpenAiServer } from '../../../test/helpers/models/fake-openai-server.js';
import { openaiFaults } from '../../../test/helpers/models/provider-faults.js';

let harness: RuntimeHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('OpenTelemetry GenAI spans of a run tree', () => {
  it('marks the run span as failed with the run error type', async () => {
    const recorder = recordSpans();
    harness = await createRuntimeHarness({ tracer: recorder.tracer });
    const user = await harness.createUser('alice');
    const agent = await harness.createAgent(user, 'broken', { model: 'scripted:no-such-scenario' });
    const conversation = await harness.createConversation(user, agent);
    const { run } = await harness.runs.postMessage(user, conversation.id, { content: 'hello' });
    const done = await harness.runs.await(user, run.id, 15_000);
    expect(done.run.status).toBe('failed');
    expect(done.run.error?.type).toBe('model_not_found');
    await recorder.until((spans) => runSpans(spans).length === 1);
    const [span] = runSpans(recorder.spans());
    expect(span?.status.code).toBe(SpanStatusCode.ERROR);
    expect(span?.attributes).toMatchObject({
      'troupe.run.status': 'failed',
      'error.type': done.run.error?.type,
      'gen_ai.provider.name': 'scripted',
      'gen_ai.request.model': 'no-such-scenario',
    });
  });

  it('one chat span per logical model call: its retries and its fallback are events on it', async () => {
    const recorder = recordSpans();
    const openai = await startFakeOpenAiServer({
      responses: [openaiFaults.rateLimited(0), openaiFaults.serverError(502), openaiFaults.serverError(502)],
    });
    const anthropic = await startFakeAnthropicServer({ responses: [{ text: 'From the fallback.' }] });
    try {
      harness = await createRuntimeHarness({
        tracer: recorder.tracer,
        models: {
          openaiBaseUrl: openai.baseURL,
          openaiApiKey: 'sk-test',
          anthropicBaseUrl: anthropic.baseURL,
          anthropicApiKey: 'ak-test',
        },
        config: { modelCalls: { ...DEFAULT_MODEL_CALL_SETTINGS, retryBaseMs: 5 } },
      });
      const user = await harness.createUser('alice');
      const agent = await harness.createAgent(user, 'main', {
        model: 'openai:gpt-test',
        model_fallbacks: ['anthropic:claude-test'],
        model_retry: { max_retries: 2 },
      });
      const conversation = await harness.createConversation(user, agent);
      const { run } = await harness.runs.postMessage(user, conversation.id, { content: 'hello' });
      expect((await harness.runs.await(user, run.id, 15_000)).run.status).toBe('completed');
      await recorder.until((spans) => runSpans(spans).length === 1);
      const chat = only(recorder.spans(), 'chat gpt-test');
      expect(
        chat.events.map((event) => [event.name, event.attributes?.['troupe.model_call.reason']]),
      ).toEqual([
        ['model_retry', 'rate_limited'],
        ['model_retry', 'server_error'],
        ['model_fallback', 'server_error'],
      ]);
      expect(chat.events[2]?.attributes).toMatchObject({
        'troupe.model_call.from': 'openai:gpt-test',
        'troupe.model_call.to': 'anthropic:claude-test',
      });
      expect(chat.attributes).toMatchObject({
        'gen_ai.request.model': 'gpt-test',
        'gen_ai.response.model': 'claude-test',
        'troupe.model.answered': 'anthropic:claude-test',
      });
      expect(chat.status.code).not.toBe(SpanStatusCode.ERROR);
    } finally {
      await openai.close();
      await anthropic.close();
    }
  });

  it('records nothing in child runs when tracing is off', async () => {
    harness = await createRuntimeHarness({ scenarios: { main: MAIN, helper: HELPER } });
    const user = await harness.createUser('alice');
    await harness.createAgent(
      user,
      'helper',
      { model: 'scripted:helper', tools: ['read_file'] },
      {
        backend: 'subagent',
        is_subagent: true,
      },
    );
    const main = await harness.createAgent(user, 'main', { model: 'scripted:main', tools: ['read_file'] });
    const conversation = await harness.createConversation(user, main);
    const { run } = await harness.runs.postMessage(user, conversation.id, { content: 'the logs' });
    expect((await harness.runs.await(user, run.id, 15_000)).run.status).toBe('completed');
    const [child] = await harness.storage.runs.listChildren(run.id);
    expect(child?.status).toBe('completed');
    expect(child?.input).not.toHaveProperty('traceparent');
  });
});
