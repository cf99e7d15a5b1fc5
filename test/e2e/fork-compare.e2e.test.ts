import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeModelServer, RecordedRequest } from '../helpers/models/fake-model-server.js';
import { startFakeOpenAiServer } from '../helpers/models/fake-openai-server.js';
import { startTestServer, type TestServer } from '../helpers/start-test-server.js';

/**
 * Forks and comparisons over real HTTP (docs/effects-and-forks.md): the demo's scripted agents, and an agent on
 * the real OpenAI adapter talking to a fake OpenAI server on loopback.
 */
let server: TestServer;
let model: FakeModelServer;

interface Run {
  id: string;
  conversation_id: string;
  status: string;
  run_type: string;
  depth: number;
  created_by_run_id: string | null;
  model_spec: string;
  output: string | null;
  forked_from: { run_id: string; step: number } | null;
  input: { message: string; agent_overrides?: { system_prompt?: string; tools?: string[] } };
  usage: { model_calls: number } | null;
}
interface Conversation {
  id: string;
  status: string;
  title: string;
  project_id: string;
  agent_id: string;
  metadata: Record<string, unknown>;
}
interface Message {
  run_id: string | null;
  step: number;
  message: { role: string; content: unknown };
}
interface ComparedRun {
  run_id: string;
  model_spec: string;
  forked_from: { run_id: string; step: number } | null;
  own: { model_calls: number; total_tokens: number; cost_usd: number | null };
  steps: { step: number; copied: boolean; tool_calls: { name: string; is_error: boolean | null }[] }[];
  tool_calls: { total: number; errors: number; by_name: Record<string, number> };
  duration_ms: number | null;
  output: string | null;
  children: ComparedRun[];
}
interface Comparison {
  a: ComparedRun;
  b: ComparedRun;
  output_diff: { unit: string; parts: { op: string; text: string }[] };
}

type Api = (pathname: string, init?: { method?: string; body?: unknown }) => Promise<Response>;

const as =
  (token: string): Api =>
  (pathname, init = {}) =>
    fetch(`${server.url}${pathname}`, {
      method: init.method ?? 'GET',
      headers: {
        authorization: `Bearer ${token}`,
        ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
    });

async function json<T>(response: Response, status = 200): Promise<T> {
  const body = (await response.json()) as T;
  expect(response.status, JSON.stringify(body)).toBe(status);
  return body;
}

async function errorCode(response: Response, status: number): Promise<string> {
  return (await json<{ error: { code: string } }>(response, status)).error.code;
}

let admin: Api;
let bob: Api;
let carol: Api;

async function member(name: string): Promise<Api> {
  const created = await json<{ token: string }>(
    await server.api('/api/users', { method: 'POST', body: JSON.stringify({ name, role: 'member' }) }),
    201,
  );
  return as(created.token);
}

async function chat(
  api: Api,
  content: string,
  agent = 'assistant',
): Promise<{ run: Run; conversation: Conversation }> {
  const { conversation } = await json<{ conversation: Conversation }>(
    await api('/api/conversations', { method: 'POST', body: { agent_id: agent } }),
    201,
  );
  const { run } = await json<{ run: Run }>(
    await api(`/api/conversations/${conversation.id}/messages`, { method: 'POST', body: { content } }),
    202,
  );
  return { run: await finished(api, run.id), conversation };
}

async function finished(api: Api, runId: string): Promise<Run> {
  const { run } = await json<{ run: Run }>(await api(`/api/agent/runs/${runId}/await?timeout_ms=30000`));
  expect(run.status, JSON.stringify(run)).toBe('completed');
  return run;
}

async function fork(api: Api, runId: string, body: unknown, status = 202) {
  return json<{ run: Run; conversation: Conversation }>(
    await api(`/api/agent/runs/${runId}/fork`, { method: 'POST', body }),
    status,
  );
}

const messages = async (api: Api, conversationId: string) =>
  (await json<{ messages: Message[] }>(await api(`/api/conversations/${conversationId}/messages`))).messages;

const compare = async (api: Api, a: string, b: string) =>
  (await json<{ comparison: Comparison }>(await api(`/api/agent/runs/${a}/compare/${b}`))).comparison;

let lastOpenAiRequest: RecordedRequest | undefined;

beforeAll(async () => {
  model = await startFakeOpenAiServer({
    responses: (request) => {
      lastOpenAiRequest = request;
      const system = JSON.stringify((request.body.messages as { role: string }[])[0] ?? '');
      return {
        text: `${String(request.body.model)} says ${system.includes('ROLE:terse') ? 'ok' : 'a longer answer'}`,
      };
    },
  });
  server = await startTestServer({ openaiBaseUrl: model.baseURL, openaiApiKey: 'sk-test' });
  admin = as(server.token);
  bob = await member('bob');
  carol = await member('carol');
}, 60_000);

afterAll(async () => {
  await server?.close();
  await model?.close();
});

describe('POST /api/agent/runs/{id}/fork', () => {
  it('forks a whole run into a new conversation with a new input; the source is untouched', async () => {
    const source = await chat(admin, 'fork me please');
    const before = await messages(admin, source.conversation.id);
    const forked = await fork(admin, source.run.id, { input: 'and now something else' });
    expect(forked.run.forked_from).toEqual({ run_id: source.run.id, step: 3 });
    expect(forked.conversation).toMatchObject({
      status: 'active',
      title: 'Fork of fork me please',
      project_id: source.conversation.project_id,
      agent_id: source.conversation.agent_id,
      metadata: { forked_from: { run_id: source.run.id, step: 3, conversation_id: source.conversation.id } },
    });
    expect(forked.run.conversation_id).toBe(forked.conversation.id);
    const done = await finished(admin, forked.run.id);
    expect(done.output).toContain('and now something else');
    const thread = await messages(admin, forked.conversation.id);
    // The source's whole thread, as history, then the fork's own turn.
    expect(thread.slice(0, before.length).map((entry) => [entry.run_id, entry.step, entry.message])).toEqual(
      before.map((entry) => [entry.run_id, entry.step, entry.message]),
    );
    expect(thread[before.length]).toMatchObject({
      run_id: forked.run.id,
      step: 0,
      message: { role: 'user', content: 'and now something else' },
    });
    expect(await messages(admin, source.conversation.id)).toEqual(before);
  });

  it('re-runs from a step without input: the kept steps are the fork run’s own and it continues after them', async () => {
    const source = await chat(admin, 'continue me');
    const forked = await fork(admin, source.run.id, { after_step: 1 });
    expect(forked.run.forked_from).toEqual({ run_id: source.run.id, step: 1 });
    expect(forked.run.input.message).toBe('continue me');
    const thread = await messages(admin, forked.conversation.id);
    expect(thread.map((entry) => [entry.run_id, entry.step, entry.message.role])).toEqual([
      [forked.run.id, 0, 'user'],
      [forked.run.id, 1, 'assistant'],
      [forked.run.id, 1, 'tool'],
    ]);
    const done = await finished(admin, forked.run.id);
    expect(done.output).toBe(source.run.output);
    // Only the steps after the fork point were model calls of the fork.
    expect(done.usage?.model_calls).toBe(2);
    const comparison = await compare(admin, source.run.id, forked.run.id);
    expect(comparison.output_diff.parts).toEqual([{ op: 'equal', text: source.run.output }]);
    expect(comparison.a.own.model_calls).toBe(3);
    expect(comparison.b.own.model_calls).toBe(2);
    expect(comparison.b.forked_from).toEqual({ run_id: source.run.id, step: 1 });
    // The kept step is the fork's own in its thread, but the source ran it: marked, and not counted.
    expect(comparison.b.steps.map((step) => [step.step, step.copied])).toEqual([
      [1, true],
      [2, false],
      [3, false],
    ]);
    expect(comparison.b.tool_calls).toEqual({ total: 1, errors: 0, by_name: { read_file: 1 } });
    expect(comparison.a.steps.every((step) => !step.copied)).toBe(true);
  });

  it('re-runs the source input with another model (owner), and compare shows both sides and the output diff', async () => {
    const source = await chat(admin, 'summarise the week');
    const forked = await fork(admin, source.run.id, { agent_overrides: { model: 'scripted:summarizer' } });
    expect(forked.run.forked_from).toEqual({ run_id: source.run.id, step: 0 });
    expect(forked.run.model_spec).toBe('scripted:summarizer');
    const done = await finished(admin, forked.run.id);
    expect(done.output).toBe('Summary: summarise the week');
    const comparison = await compare(admin, source.run.id, forked.run.id);
    expect(comparison.a).toMatchObject({
      run_id: source.run.id,
      model_spec: 'scripted:demo',
      forked_from: null,
    });
    expect(comparison.a.tool_calls).toEqual({
      total: 2,
      errors: 0,
      by_name: { write_file: 1, read_file: 1 },
    });
    expect(comparison.a.steps.map((step) => step.tool_calls.map((call) => call.name))).toEqual([
      ['write_file'],
      ['read_file'],
      [],
    ]);
    expect(comparison.b).toMatchObject({ run_id: forked.run.id, model_spec: 'scripted:summarizer' });
    expect(comparison.b.tool_calls.total).toBe(0);
    expect(comparison.a.duration_ms).toBeGreaterThan(0);
    const ops = new Set(comparison.output_diff.parts.map((part) => part.op));
    expect(ops).toEqual(new Set(['equal', 'delete', 'insert']));
    const side = (op: string) =>
      comparison.output_diff.parts
        .filter((part) => part.op === 'equal' || part.op === op)
        .map((part) => part.text)
        .join('');
    expect(side('delete')).toBe(source.run.output);
    expect(side('insert')).toBe(done.output);
  });

  it('refuses a fork point past the run or after its final answer, and a bad model, creating nothing', async () => {
    const source = await chat(admin, 'nothing to redo');
    const count = async () =>
      (await json<{ conversations: unknown[] }>(await admin('/api/conversations'))).conversations.length;
    const conversations = await count();
    expect(
      await errorCode(
        await admin(`/api/agent/runs/${source.run.id}/fork`, { method: 'POST', body: { after_step: 3 } }),
        400,
      ),
    ).toBe('fork_point_invalid');
    expect(
      await errorCode(
        await admin(`/api/agent/runs/${source.run.id}/fork`, {
          method: 'POST',
          body: { after_step: 9, input: 'x' },
        }),
        404,
      ),
    ).toBe('step_not_found');
    expect(
      await errorCode(
        await admin(`/api/agent/runs/${source.run.id}/fork`, { method: 'POST', body: { input: '  ' } }),
        400,
      ),
    ).toBe('validation_failed');
    expect(
      await errorCode(
        await admin(`/api/agent/runs/${source.run.id}/fork`, {
          method: 'POST',
          body: { agent_overrides: { model: 'nope' } },
        }),
        400,
      ),
    ).toBe('invalid_model_spec');
    expect(
      await errorCode(
        await admin(`/api/agent/runs/${source.run.id}/fork`, { method: 'POST', body: { extra: 1 } }),
        400,
      ),
    ).toBe('validation_failed');
    expect(await count()).toBe(conversations);
  });

  it('lets a member who only uses the agent narrow its tools, never change its model or prompt', async () => {
    const source = await chat(bob, 'bob writes a note');
    for (const agent_overrides of [{ model: 'scripted:summarizer' }, { system_prompt: 'You obey bob.' }]) {
      expect(
        await errorCode(
          await bob(`/api/agent/runs/${source.run.id}/fork`, { method: 'POST', body: { agent_overrides } }),
          403,
        ),
      ).toBe('fork_override_forbidden');
    }
    // A pattern that names a tool the agent lacks gives nothing: tools only narrow.
    const forked = await fork(bob, source.run.id, {
      agent_overrides: { tools: ['write_file', 'read_file', 'execute'] },
    });
    expect(forked.run.input.agent_overrides).toEqual({ tools: ['write_file', 'read_file', 'execute'] });
    await finished(bob, forked.run.id);
    const offered = async (runId: string) =>
      (await json<{ step: { prompt: { tools: string[] } } }>(await bob(`/api/agent/runs/${runId}/steps/1`)))
        .step.prompt.tools;
    expect((await offered(source.run.id)).length).toBeGreaterThan(2);
    expect((await offered(forked.run.id)).sort()).toEqual(['read_file', 'write_file']);
    const comparison = await compare(bob, source.run.id, forked.run.id);
    expect(comparison.b.tool_calls).toEqual(comparison.a.tool_calls);
  });

  it("answers another user's run ids with 404 on fork and compare; an admin compares but does not fork", async () => {
    const bobs = await chat(bob, 'bob only');
    const carols = await chat(carol, 'carol only');
    expect(
      await errorCode(await carol(`/api/agent/runs/${bobs.run.id}/fork`, { method: 'POST', body: {} }), 404),
    ).toBe('run_not_found');
    expect(await errorCode(await carol(`/api/agent/runs/${bobs.run.id}/compare/${carols.run.id}`), 404)).toBe(
      'run_not_found',
    );
    expect(await errorCode(await carol(`/api/agent/runs/${carols.run.id}/compare/${bobs.run.id}`), 404)).toBe(
      'run_not_found',
    );
    expect(
      await errorCode(await admin(`/api/agent/runs/${bobs.run.id}/fork`, { method: 'POST', body: {} }), 404),
    ).toBe('run_not_found');
    const comparison = await compare(admin, bobs.run.id, carols.run.id);
    expect([comparison.a.run_id, comparison.b.run_id]).toEqual([bobs.run.id, carols.run.id]);
  });

  it('forks a child run into a child conversation of its own, as a root of the same kind', async () => {
    const source = await chat(admin, 'research the fork feature');
    const { tree } = await json<{ tree: { children: { run: Run }[] } }>(
      await admin(`/api/agent/runs/${source.run.id}/tree`),
    );
    const child = tree.children[0]?.run;
    expect(child?.run_type).toBe('subagent');
    if (!child) return;
    const forked = await fork(admin, child.id, { after_step: 0 });
    expect(forked.conversation.status).toBe('subagent');
    expect(forked.run).toMatchObject({
      run_type: 'subagent',
      depth: 0,
      created_by_run_id: null,
      forked_from: { run_id: child.id, step: 0 },
    });
    expect(forked.run.input.message).toBe(child.input.message);
    const done = await finished(admin, forked.run.id);
    expect(done.output).toBe((await finished(admin, child.id)).output);
    // A child conversation takes no messages, the fork's included.
    expect(
      await errorCode(
        await admin(`/api/conversations/${forked.conversation.id}/messages`, {
          method: 'POST',
          body: { content: 'hi' },
        }),
        409,
      ),
    ).toBe('conversation_archived');
    const comparison = await compare(admin, source.run.id, child.id);
    expect(comparison.a.children.map((entry) => entry.run_id)).toEqual([child.id]);
  });

  it('lists forks in the runs explorer with their origin, and filters them', async () => {
    const { runs } = await json<{ runs: { id: string; forked_from: { run_id: string } | null }[] }>(
      await admin('/api/agent/runs?forked=true&limit=100'),
    );
    expect(runs.length).toBeGreaterThan(0);
    expect(runs.every((run) => run.forked_from !== null)).toBe(true);
    const others = await json<{ runs: { forked_from: unknown }[] }>(
      await admin('/api/agent/runs?forked=false&limit=100'),
    );
    expect(others.runs.every((run) => run.forked_from === null)).toBe(true);
  });
});

describe('a fork on the real OpenAI adapter (fake OpenAI server)', () => {
  it('sends the overridden model and system prompt with the copied thread', async () => {
    await json(
      await admin('/api/agent', {
        method: 'POST',
        body: {
          slug: 'gpt-agent',
          name: 'GPT agent',
          config: { model: 'openai:gpt-test', system_prompt: 'ROLE:verbose', tools: [] },
        },
      }),
      201,
    );
    const source = await chat(admin, 'tell me about forks', 'gpt-agent');
    expect(source.run.output).toBe('gpt-test says a longer answer');
    const forked = await fork(admin, source.run.id, {
      input: 'again, briefly',
      agent_overrides: { model: 'openai:gpt-other', system_prompt: 'ROLE:terse' },
    });
    const done = await finished(admin, forked.run.id);
    expect(done.output).toBe('gpt-other says ok');
    const sent = (lastOpenAiRequest?.body.messages ?? []) as { role: string; content: unknown }[];
    expect(lastOpenAiRequest?.body.model).toBe('gpt-other');
    expect(sent.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(JSON.stringify(sent[0])).toContain('ROLE:terse');
    expect(JSON.stringify(sent[1])).toContain('tell me about forks');
    const comparison = await compare(admin, source.run.id, forked.run.id);
    expect(comparison.a.own.total_tokens).toBeGreaterThan(0);
    expect(comparison.b.model_spec).toBe('openai:gpt-other');
    expect(comparison.output_diff).toEqual({
      unit: 'word',
      parts: [
        { op: 'delete', text: 'gpt-test ' },
        { op: 'insert', text: 'gpt-other ' },
        { op: 'equal', text: 'says ' },
        { op: 'delete', text: 'a longer answer' },
        { op: 'insert', text: 'ok' },
      ],
    });
  });
});
