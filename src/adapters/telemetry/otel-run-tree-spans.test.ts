import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { HELPER, MAIN, only, parentOf, recordSpans, runSpans } from '../../../test/helpers/record-spans.js';
import { createRuntimeHarness, type RuntimeHarness } from '../../../test/helpers/create-runtime-harness.js';

let harness: RuntimeHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('OpenTelemetry GenAI spans of a run tree', () => {
  it('traces a run, its model and tool calls, and a subagent run under the task call that started it', async () => {
    const recorder = recordSpans();
    harness = await createRuntimeHarness({
      scenarios: { main: MAIN, helper: HELPER },
      tracer: recorder.tracer,
    });
    const user = await harness.createUser('alice');
    const helper = await harness.createAgent(
      user,
      'helper',
      { model: 'scripted:helper', tools: ['read_file'] },
      {
        backend: 'subagent',
        is_subagent: true,
        name: 'Helper',
      },
    );
    const main = await harness.createAgent(
      user,
      'main',
      { model: 'scripted:main', tools: ['read_file'], tool_approval_mode: 'always_trust' },
      { name: 'Main agent', description: 'The main agent' },
    );
    const conversation = await harness.createConversation(user, main);
    const { run } = await harness.runs.postMessage(user, conversation.id, { content: 'the logs' });
    const done = await harness.runs.await(user, run.id, 15_000);
    expect(done.run.status).toBe('completed');
    expect(done.run.usage?.input_tokens).toBeGreaterThan(0);
    await recorder.until((spans) => runSpans(spans).length === 2);
    const spans = recorder.spans();
    const [child] = await harness.storage.runs.listChildren(run.id);
    if (!child) throw new Error('the task call started no child run');

    // invoke_agent per run: the root has no parent; the child hangs under the `task` tool span.
    const rootSpan = only(spans, 'invoke_agent Main agent');
    expect(rootSpan.kind).toBe(SpanKind.INTERNAL);
    expect(rootSpan.parentSpanContext).toBeUndefined();
    expect(rootSpan.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.provider.name': 'scripted',
      'gen_ai.request.model': 'main',
      'gen_ai.agent.id': main.id,
      'gen_ai.agent.name': 'Main agent',
      'gen_ai.agent.description': 'The main agent',
      'gen_ai.conversation.id': conversation.id,
      'troupe.run.id': run.id,
      'troupe.run.status': 'completed',
      'gen_ai.usage.input_tokens': done.run.usage?.input_tokens,
      'gen_ai.usage.output_tokens': done.run.usage?.output_tokens,
    });
    expect(rootSpan.status.code).toBe(SpanStatusCode.UNSET);

    const taskSpan = only(spans, 'execute_tool task');
    expect(parentOf(taskSpan)).toBe(rootSpan.spanContext().spanId);
    expect(taskSpan.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'task',
      'gen_ai.tool.call.id': child.input.parent_tool_call_id,
      'gen_ai.tool.type': 'function',
      'gen_ai.conversation.id': conversation.id,
    });
    expect(taskSpan.status.code).toBe(SpanStatusCode.UNSET);

    const childSpan = only(spans, 'invoke_agent Helper');
    expect(childSpan.spanContext().traceId).toBe(rootSpan.spanContext().traceId);
    expect(parentOf(childSpan)).toBe(taskSpan.spanContext().spanId);
    expect(childSpan.attributes).toMatchObject({
      'gen_ai.agent.id': helper.id,
      'gen_ai.agent.name': 'Helper',
      'gen_ai.request.model': 'helper',
      'gen_ai.conversation.id': child.conversation_id,
      'troupe.run.id': child.id,
      'troupe.run.parent_id': run.id,
      'troupe.run.type': 'subagent',
    });
    // The link is carried by the child run itself, so a worker in another process finds it too.
    expect(child.input.traceparent).toBe(
      `00-${taskSpan.spanContext().traceId}-${taskSpan.spanContext().spanId}-01`,
    );

    // chat per model call: two for the main run (tool calls, then the answer), one for the helper.
    const mainChats = spans.filter((span) => span.name === 'chat main');
    expect(mainChats).toHaveLength(2);
    for (const chat of mainChats) {
      expect(chat.kind).toBe(SpanKind.CLIENT);
      expect(parentOf(chat)).toBe(rootSpan.spanContext().spanId);
      expect(chat.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'scripted',
        'gen_ai.request.model': 'main',
        'gen_ai.conversation.id': conversation.id,
        'gen_ai.agent.name': 'Main agent',
      });
    }
    const chatInput = mainChats.map((chat) => chat.attributes['gen_ai.usage.input_tokens'] as number);
    const chatOutput = mainChats.map((chat) => chat.attributes['gen_ai.usage.output_tokens'] as number);
    expect(chatInput.reduce((sum, value) => sum + value, 0)).toBe(done.run.usage?.input_tokens);
    expect(chatOutput.reduce((sum, value) => sum + value, 0)).toBe(done.run.usage?.output_tokens);
    expect(mainChats.map((chat) => chat.attributes['gen_ai.response.finish_reasons'])).toEqual([
      ['tool-calls'],
      ['stop'],
    ]);
    expect(parentOf(only(spans, 'chat helper'))).toBe(childSpan.spanContext().spanId);

    // A tool call answered with an error result is an errored span; the run itself is not.
    const readSpan = only(spans, 'execute_tool read_file');
    expect(parentOf(readSpan)).toBe(rootSpan.spanContext().spanId);
    expect(readSpan.status.code).toBe(SpanStatusCode.ERROR);
    expect(readSpan.attributes['error.type']).toBe('tool_error');
  });

  it('traces a delegation: the expert run hangs under the delegate call', async () => {
    const recorder = recordSpans();
    harness = await createRuntimeHarness({
      scenarios: {
        a: `rules:\n  - steps:\n      - tool_calls: [{ name: delegate, args: { expert: expert-b, task: "{{input}}" } }]\n      - text: "A got: {{last_tool_result}}"\n`,
        b: `rules:\n  - steps:\n      - text: "B says <{{input}}>"\n`,
      },
      tracer: recorder.tracer,
    });
    const user = await harness.createUser('alice');
    await harness.storage.users.setDelegationPolicy(user.id, 'all', []);
    const a = await harness.createAgent(
      user,
      'expert-a',
      { model: 'scripted:a' },
      { status: 'published', name: 'Expert A' },
    );
    await harness.createAgent(
      user,
      'expert-b',
      { model: 'scripted:b' },
      { status: 'published', name: 'Expert B' },
    );
    const conversation = await harness.createConversation(user, a);
    const { run } = await harness.runs.postMessage(user, conversation.id, { content: 'question' });
    expect((await harness.runs.await(user, run.id, 15_000)).run.status).toBe('completed');
    await recorder.until((spans) => runSpans(spans).length === 2);
    const spans = recorder.spans();
    const root = only(spans, 'invoke_agent Expert A');
    const delegate = only(spans, 'execute_tool delegate');
    const expert = only(spans, 'invoke_agent Expert B');
    expect(parentOf(delegate)).toBe(root.spanContext().spanId);
    expect(parentOf(expert)).toBe(delegate.spanContext().spanId);
    expect(expert.spanContext().traceId).toBe(root.spanContext().traceId);
    expect(expert.attributes['troupe.run.type']).toBe('delegation');
  });

  it('traces a grader run as its own invoke_agent (troupe.run.type grader) under the call that waits for it', async () => {
    const recorder = recordSpans();
    harness = await createRuntimeHarness({
      scenarios: {
        boss: `rules:\n  - steps:\n      - tool_calls: [{ name: delegate, args: { expert: worker, task: "{{input}}", acceptance: "Says done." } }]\n      - text: "Boss got: {{last_tool_result}}"\n`,
        worker: `rules:\n  - steps:\n      - text: "done <{{input}}>"\n`,
        judge: `rules:\n  - steps:\n      - text: '{"verdict": "satisfied", "reasons": ["It says done."]}'\n`,
      },
      tracer: recorder.tracer,
    });
    const user = await harness.createUser('alice');
    await harness.storage.users.setDelegationPolicy(user.id, 'all', []);
    const boss = await harness.createAgent(
      user,
      'boss',
      { model: 'scripted:boss', grader: { model: 'scripted:judge' } },
      { status: 'published', name: 'Boss' },
    );
    await harness.createAgent(
      user,
      'worker',
      { model: 'scripted:worker' },
      { status: 'published', name: 'Worker' },
    );
    const conversation = await harness.createConversation(user, boss);
    const { run } = await harness.runs.postMessage(user, conversation.id, { content: 'the job' });
    expect((await harness.runs.await(user, run.id, 15_000)).run.status).toBe('completed');
    await recorder.until((spans) => runSpans(spans).length === 3);
    const spans = recorder.spans();
    const root = only(spans, 'invoke_agent Boss');
    const delegate = only(spans, 'execute_tool delegate');
    const grader = only(spans, 'invoke_agent grader');
    const graderRun = (await harness.storage.runs.listChildren(run.id)).find(
      (child) => child.run_type === 'grader',
    );
    expect(graderRun).toBeDefined();
    // Its own operation: an invoke_agent span of type grader, on the judge model, in the parent's trace, under
    // the delegate call that waits for its verdict.
    expect(grader.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.request.model': 'judge',
      'troupe.run.type': 'grader',
      'troupe.run.id': graderRun?.id,
      'troupe.run.parent_id': run.id,
      'troupe.run.status': 'completed',
    });
    expect(grader.spanContext().traceId).toBe(root.spanContext().traceId);
    expect(parentOf(delegate)).toBe(root.spanContext().spanId);
    expect(parentOf(grader)).toBe(delegate.spanContext().spanId);
    expect(parentOf(only(spans, 'chat judge'))).toBe(grader.spanContext().spanId);
  });
});
