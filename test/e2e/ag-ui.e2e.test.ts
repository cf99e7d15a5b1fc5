import { randomUUID } from 'node:crypto';
import { EventType, HttpAgent, type BaseEvent } from '@ag-ui/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AG_UI_EVENT_SCHEMA } from '../../src/http/response-schemas/ag-ui-event.js';
import { startTestServer, type TestServer } from '../helpers/start-test-server.js';

/**
 * AG-UI over real HTTP on loopback, driven by the official `@ag-ui/client` HttpAgent (which verifies the
 * event sequence itself): a run's text, tool calls, steps and state, children as subagents linked to the
 * run that started them, approvals and questions as interrupts answered by `resume`.
 */
let server: TestServer;

/** An event as received: its type (as a string) and whatever fields that type has. */
type AgUiEvent = Omit<BaseEvent, 'type'> & { type: string } & Record<string, never>;
/** The fields a test reads from an event, for a type it knows. */
const as = <T>(event: unknown) => event as T;

beforeAll(async () => {
  server = await startTestServer();
  for (const [slug, tools, mode] of [
    ['careful', ['read_file', 'write_file'], 'default'],
    ['asker', ['ask_user_question'], 'default'],
  ] as const) {
    const response = await server.api('/api/agent', {
      method: 'POST',
      body: JSON.stringify({
        name: slug,
        slug,
        config: { model: 'scripted:demo', tools: [...tools], tool_approval_mode: mode },
      }),
    });
    expect(response.status).toBe(201);
  }
});
afterAll(async () => {
  await server.close();
});

function agentFor(slug: string, threadId: string = randomUUID(), token = server.token): HttpAgent {
  return new HttpAgent({
    url: `${server.url}/ag-ui/${slug}`,
    headers: { Authorization: `Bearer ${token}` },
    threadId,
  });
}

/** One AG-UI run: the user's message (unless resuming), every event the client applied, in order. */
async function run(agent: HttpAgent, text: string | undefined, resume?: unknown[]) {
  if (text !== undefined) agent.addMessage({ id: randomUUID(), role: 'user', content: text });
  const events: AgUiEvent[] = [];
  await agent.runAgent(resume ? ({ resume } as never) : {}, {
    onEvent: ({ event }) => {
      events.push(event as unknown as AgUiEvent);
    },
  });
  // The document's event schema is closed: every frame the server sent fits it exactly.
  for (const event of events) expect(AG_UI_EVENT_SCHEMA.safeParse(event).error).toBeUndefined();
  return events;
}

const types = (events: readonly AgUiEvent[]) => events.map((event) => event.type);
const troupeRun = (events: readonly unknown[]) =>
  as<{ metadata: { troupe: { run_id: string; conversation_id: string } } }>(events[0]).metadata.troupe;

describe('POST /ag-ui/{slug} with the official HttpAgent', () => {
  it('streams a run as AG-UI events: run, state, steps, text and tool calls', async () => {
    const agent = agentFor('assistant');
    const events = await run(agent, 'Hello from AG-UI');
    expect(events[0]).toMatchObject({ type: 'RUN_STARTED', threadId: agent.threadId });
    expect(events[1]).toMatchObject({ type: 'STATE_SNAPSHOT', snapshot: { troupe: { status: 'pending' } } });
    expect(events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    const seen = new Set(types(events));
    for (const type of [
      'STEP_STARTED',
      'STEP_FINISHED',
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_END',
    ])
      expect(seen).toContain(type);
    for (const type of ['TOOL_CALL_START', 'TOOL_CALL_ARGS', 'TOOL_CALL_END', 'TOOL_CALL_RESULT'])
      expect(seen).toContain(type);
    // What the client built is the run: its answer, and the write_file call with its result.
    const finished = as<{ result: string; usage: { totalTokens: number }[] }>(events.at(-1));
    const assistant = agent.messages.filter((message) => message.role === 'assistant');
    expect(assistant.at(-1)?.content).toBe(finished.result);
    expect(finished.usage[0]?.totalTokens).toBeGreaterThan(0);
    const calls = assistant.flatMap((message) => ('toolCalls' in message ? (message.toolCalls ?? []) : []));
    expect(calls.map((call) => call.function.name)).toContain('write_file');
    expect(agent.messages.some((message) => message.role === 'tool')).toBe(true);
    const { run_id: runId } = troupeRun(events);
    const stored = await server.troupe.storage.runs.get(runId);
    expect(stored?.output).toBe(finished.result);
  });

  it('keeps a thread as one conversation, and a replayed runId follows the same run', async () => {
    const agent = agentFor('assistant');
    const first = troupeRun(await run(agent, 'First turn'));
    const second = troupeRun(await run(agent, 'Second turn'));
    expect(second.conversation_id).toBe(first.conversation_id);
    expect(second.run_id).not.toBe(first.run_id);
    // A conversation id is a thread id too.
    const byId = agentFor('assistant', first.conversation_id);
    expect(troupeRun(await run(byId, 'Third turn')).conversation_id).toBe(first.conversation_id);
    const replay = agentFor('assistant', first.conversation_id);
    replay.addMessage({ id: 'm', role: 'user', content: 'ignored on a replay' });
    const runId = randomUUID();
    const once: BaseEvent[] = [];
    const twice: BaseEvent[] = [];
    await replay.runAgent({ runId }, { onEvent: ({ event }) => void once.push(event) });
    await replay.runAgent({ runId }, { onEvent: ({ event }) => void twice.push(event) });
    expect(troupeRun(twice).run_id).toBe(troupeRun(once).run_id);
  });

  it('shows child runs as subagents linked to the run that started them', async () => {
    const agent = agentFor('assistant');
    const events = await run(agent, 'Please research the onboarding notes');
    const started = as<
      | { subagentRunId: string; name: string; parentToolCallId: string; metadata: { parentRunId: string } }
      | undefined
    >(events.find((event) => event.type === 'SUBAGENT_STARTED'));
    // Linked to the AG-UI run that started it.
    expect(started).toMatchObject({
      name: 'researcher',
      metadata: { parentRunId: as<{ runId: string }>(events[0]).runId },
    });
    const child = await server.troupe.storage.runs.get(started?.subagentRunId ?? '');
    expect(child?.created_by_run_id).toBe(troupeRun(events).run_id);
    expect(
      events.some(
        (event) => event.type === 'TOOL_CALL_START' && event.toolCallId === started?.parentToolCallId,
      ),
    ).toBe(true);
    // The child's own text and steps are attributed to it, and it finishes before the run does.
    expect(
      events.some(
        (event) => event.type === 'TEXT_MESSAGE_CONTENT' && event.subagentRunId === started?.subagentRunId,
      ),
    ).toBe(true);
    const finishedAt = events.findIndex(
      (event) => event.type === 'SUBAGENT_FINISHED' && event.subagentRunId === started?.subagentRunId,
    );
    expect(finishedAt).toBeGreaterThan(0);
    expect(finishedAt).toBeLessThan(events.length - 1);
    expect(events.some((event) => event.type === 'STATE_DELTA')).toBe(true);
  });

  it('stops on an approval with an interrupt, and a resume decides it and streams on', async () => {
    const agent = agentFor('careful');
    const stopped = await run(agent, 'note this for later');
    const finished = as<{ outcome: { type: string; interrupts: { id: string; reason: string }[] } }>(
      stopped.at(-1),
    );
    expect(finished.outcome.type).toBe('interrupt');
    expect(finished.outcome.interrupts).toMatchObject([{ reason: 'tool_approval' }]);
    expect(agent.pendingInterrupts.map((interrupt) => interrupt.id)).toEqual([
      finished.outcome.interrupts[0]?.id,
    ]);
    const { run_id: runId } = troupeRun(stopped);
    const resumed = await run(agent, undefined, [
      { interruptId: finished.outcome.interrupts[0]?.id, status: 'resolved', payload: { approve: true } },
    ]);
    expect(troupeRun(resumed).run_id).toBe(runId);
    expect(resumed.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    expect(String((resumed.at(-1) as { result?: string }).result)).toContain(
      'You said: "note this for later"',
    );
    expect(resumed.some((event) => event.type === 'TOOL_CALL_RESULT')).toBe(true);
  });

  it('asks a question as an interrupt and takes the answers from the resume payload', async () => {
    const agent = agentFor('asker');
    const stopped = await run(agent, 'ask me how to format it');
    const finished = as<{ outcome: { interrupts: { id: string; reason: string; message: string }[] } }>(
      stopped.at(-1),
    );
    expect(finished.outcome.interrupts).toMatchObject([
      { reason: 'question', message: 'Which format should the summary have?' },
    ]);
    const interruptId = finished.outcome.interrupts[0]?.id;
    // A payload that is no answer is refused before anything changes.
    await expect(
      run(agent, undefined, [{ interruptId, status: 'resolved', payload: { approve: true } }]),
    ).rejects.toThrow(/HTTP 400/);
    const resumed = await run(agent, undefined, [
      { interruptId, status: 'resolved', payload: { answers: ['one paragraph'] } },
    ]);
    expect(as<{ result: string }>(resumed.at(-1)).result).toContain('Answer: one paragraph');
  });

  it('cancels the run when the client aborts before it finished', async () => {
    const agent = agentFor('assistant');
    agent.addMessage({ id: randomUUID(), role: 'user', content: 'please be slow' });
    let runId = '';
    await agent
      .runAgent(
        {},
        {
          onEvent: ({ event }) => {
            if (event.type === EventType.RUN_STARTED) runId = troupeRun([event]).run_id;
            if (event.type === EventType.TEXT_MESSAGE_CONTENT) agent.abortRun();
          },
        },
      )
      .catch(() => undefined);
    const awaited = await server.api(`/api/agent/runs/${runId}/await?timeout_ms=15000`);
    expect(as<{ run: { status: string } }>(await awaited.json()).run.status).toBe('cancelled');
  });

  it('needs a token, a user message and an agent the caller may use', async () => {
    await expect(run(agentFor('assistant', randomUUID(), 'trp_not-a-token'), 'hi')).rejects.toThrow(
      /HTTP 401/,
    );
    await expect(run(agentFor('researcher'), 'a subagent is no chat agent')).rejects.toThrow(/HTTP 404/);
    const bob = await server.troupe.storage.users.create({ name: 'bob-ag-ui', role: 'member' });
    const { token } = await server.troupe.auth.issueToken(bob.id, 'e2e');
    await expect(run(agentFor('careful', randomUUID(), token), 'not yours')).rejects.toThrow(/HTTP 404/);
    const response = await server.api('/ag-ui/assistant', {
      method: 'POST',
      body: JSON.stringify({
        threadId: 't',
        runId: 'r',
        messages: [{ id: 'a', role: 'assistant', content: 'hi' }],
      }),
    });
    expect(response.status).toBe(400);
  });
});
