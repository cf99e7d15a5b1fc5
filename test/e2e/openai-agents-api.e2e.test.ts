import OpenAI from 'openai-v7';
import type { AgentSessionEvent, AgentSessionItem } from 'openai-v7/resources/beta/agents/agents';
import { beforeAll, describe, expect, it } from 'vitest';
import { agentsApiSessionEventSchema } from '../../src/http/response-schemas/agents-api-records.js';
import { locateSandboxTools } from '../../src/runtime/tools/execute/locate-sandbox-tools.js';
import { eventually } from '../helpers/eventually.js';
import {
  apiError,
  sessionWith,
  useAgentsApiWorld,
  type AgentsApiWorld,
} from '../helpers/agents-api-world.js';

const world = useAgentsApiWorld();
let client: OpenAI;
let alice: AgentsApiWorld['alice'];
let bob: AgentsApiWorld['bob'];
beforeAll(() => {
  ({ client, alice, bob } = world);
});

const none = { type: 'none' as const };

async function allItems(sessionId: string): Promise<AgentSessionItem[]> {
  const items: AgentSessionItem[] = [];
  for await (const item of client.beta.agents.sessions.items.list(sessionId, { order: 'asc' }))
    items.push(item);
  return items;
}

describe('agents with the official openai v7 client', () => {
  it("lists the caller's main agents, retrieves one, and hides subagents and other users' agents", async () => {
    const ids: string[] = [];
    for await (const agent of client.beta.agents.list({ limit: 2 })) {
      expect(agent.object).toBe('agent');
      ids.push(agent.id);
    }
    expect(ids).toEqual(expect.arrayContaining(Object.values(world.agentIds).slice(0, 4)));
    expect(ids).not.toContain(world.agentIds['bob-private']);
    const echo = await client.beta.agents.retrieve(world.agentIds.echo ?? '');
    expect(echo).toMatchObject({
      name: 'echo',
      model: 'scripted:echo',
      tools: [],
      metadata: {},
      instructions: null,
    });
    const researcher = await world.server.troupe.storage.agents.getBySlug('researcher');
    expect(ids).not.toContain(researcher?.id);
  });

  it('creates and updates an agent, and refuses what Troupe agents cannot hold', async () => {
    const created = await client.beta.agents.create({
      model: 'scripted:echo',
      name: 'Made over the Agents API',
      instructions: 'Be brief.',
      multi_agent: { enabled: true, max_concurrent_subagents: 3 },
    });
    expect(created).toMatchObject({
      object: 'agent',
      name: 'Made over the Agents API',
      instructions: 'Be brief.',
      model: 'scripted:echo',
      multi_agent: { enabled: true, max_concurrent_subagents: 3 },
    });
    const updated = await client.beta.agents.update(created.id, { instructions: 'Be thorough.' });
    expect(updated).toMatchObject({ instructions: 'Be thorough.', model: 'scripted:echo' });
    const stored = await world.server.troupe.storage.agents.get(created.id);
    expect(stored?.config.system_prompt).toBe('Be thorough.');
    expect(stored?.owner_id).toBe(alice.user.id);

    const error = await apiError(
      client.beta.agents.create({
        model: 'scripted:echo',
        tools: [{ type: 'function', name: 'f', parameters: {} } as never],
      }),
    );
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error.error).toMatchObject({
      type: 'invalid_request_error',
      code: 'validation_failed',
      param: 'tools',
    });

    const deleted = await client.beta.agents.delete(created.id);
    expect(deleted).toEqual({ id: created.id, object: 'agent.deleted', deleted: true });
    expect(await apiError(client.beta.agents.retrieve(created.id))).toBeInstanceOf(OpenAI.NotFoundError);
  });
});

describe('sessions, turns and items', () => {
  it('runs a plain session: its first turn, items and usage', async () => {
    const created = await client.beta.agents.sessions.create({
      agent_id: world.agentIds.echo ?? '',
      environment: none,
      input: 'hello agents',
      metadata: { ticket: 'T-1' },
    });
    expect(created).toMatchObject({
      object: 'agent.session',
      agent: { id: world.agentIds.echo, model: 'scripted:echo' },
      environment: { type: 'none' },
      metadata: { ticket: 'T-1' },
      vault_ids: [],
    });
    expect(['in_progress', 'idle']).toContain(created.status);
    const session = await sessionWith(client, created.id, 'idle');
    expect(session.required_actions).toEqual([]);

    const turns = [];
    for await (const turn of client.beta.agents.sessions.turns.list(created.id)) turns.push(turn);
    expect(turns).toHaveLength(1);
    const [turn] = turns;
    expect(turn).toMatchObject({
      object: 'agent.session.turn',
      status: 'completed',
      subagent_id: null,
      error: null,
    });
    expect(turn?.usage?.input_tokens).toBeGreaterThan(0);
    expect(session.usage).toEqual(turn?.usage);
    expect(
      await client.beta.agents.sessions.turns.retrieve(turn?.id ?? '', { session_id: created.id }),
    ).toEqual(turn);
    const run = await world.server.troupe.storage.runs.get(turn?.id ?? '');
    expect(run).toMatchObject({ conversation_id: created.id, user_id: alice.user.id, channel: 'api' });

    const items = await allItems(created.id);
    expect(items.map((item) => [item.type, 'role' in item ? item.role : undefined])).toEqual([
      ['message', 'user'],
      ['message', 'assistant'],
      ['function_call', undefined],
      ['function_call_output', undefined],
      ['message', 'assistant'],
    ]);
    expect(items[0]).toMatchObject({
      content: [{ type: 'input_text', text: 'hello agents' }],
      turn_id: turn?.id,
    });
    expect(items[2]).toMatchObject({ name: 'write_file', status: 'completed' });
    expect(items[4]).toMatchObject({
      phase: 'final_answer',
      content: [{ type: 'output_text', text: 'Noted: hello agents' }],
    });
    const turnItems = [];
    for await (const item of client.beta.agents.sessions.turns.items.list(turn?.id ?? '', {
      session_id: created.id,
      order: 'asc',
      limit: 2,
    }))
      turnItems.push(item);
    expect(turnItems).toEqual(items);
  });

  it('updates metadata, lists and filters sessions over several pages, and deletes (archives) one', async () => {
    const made = [];
    for (let index = 0; index < 3; index++) {
      made.push(
        await client.beta.agents.sessions.create({
          agent_id: world.agentIds.echo ?? '',
          environment: none,
          metadata: { batch: 'pages' },
        }),
      );
    }
    const updated = await client.beta.agents.sessions.update(made[0]?.id ?? '', {
      metadata: { batch: 'other' },
    });
    expect(updated.metadata).toEqual({ batch: 'other' });

    const page = await client.beta.agents.sessions.list({ limit: 1, metadata: { batch: 'pages' } });
    expect(page.data).toHaveLength(1);
    expect(page.has_more).toBe(true);
    const listed: string[] = [];
    for await (const session of client.beta.agents.sessions.list({ limit: 1, metadata: { batch: 'pages' } }))
      listed.push(session.id);
    expect(listed).toEqual([made[2]?.id, made[1]?.id]);

    const deleted = await client.beta.agents.sessions.delete(made[1]?.id ?? '');
    expect(deleted).toEqual({ id: made[1]?.id, object: 'agent.session.deleted', deleted: true });
    expect(await apiError(client.beta.agents.sessions.retrieve(made[1]?.id ?? ''))).toBeInstanceOf(
      OpenAI.NotFoundError,
    );
    const conversation = await world.server.troupe.storage.conversations.get(made[1]?.id ?? '');
    expect(conversation?.status).toBe('archived');
  });

  it('starts one turn for a repeated Idempotency-Key', async () => {
    const session = await client.beta.agents.sessions.create({
      agent_id: world.agentIds.echo ?? '',
      environment: none,
    });
    const events = [
      {
        type: 'agent.session.input.message' as const,
        input: [{ role: 'user' as const, content: [{ type: 'input_text' as const, text: 'once' }] }],
      },
    ];
    await client.beta.agents.sessions.events.create(session.id, { events, 'Idempotency-Key': 'key-1' });
    await client.beta.agents.sessions.events.create(session.id, { events, 'Idempotency-Key': 'key-1' });
    await sessionWith(client, session.id, 'idle');
    await client.beta.agents.sessions.events.create(session.id, { events, 'Idempotency-Key': 'key-1' });
    const turns = await client.beta.agents.sessions.turns.list(session.id);
    expect(turns.data).toHaveLength(1);
    // The same key in another session of the same user is another request: refused, not a second turn.
    const other = await client.beta.agents.sessions.create({
      agent_id: world.agentIds.echo ?? '',
      environment: none,
    });
    const conflict = await apiError(
      client.beta.agents.sessions.events.create(other.id, { events, 'Idempotency-Key': 'key-1' }),
    );
    expect(conflict.status).toBe(409);
  });

  it('refuses a sandbox environment for an agent without execute, and answers not_supported for vaults', async () => {
    const error = await apiError(
      client.beta.agents.sessions.create({
        agent_id: world.agentIds.echo ?? '',
        environment: { type: 'openai_hosted' },
      }),
    );
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error.error).toMatchObject({ code: 'environment_not_available', param: 'environment.type' });
    for (const call of [
      () => client.beta.agents.vaults.list(),
      () => client.beta.agents.environments.list(),
      () => client.beta.agents.automations.list(),
    ]) {
      const refused = await apiError(call());
      expect(refused).toBeInstanceOf(OpenAI.NotFoundError);
      expect(refused.error).toMatchObject({ code: 'not_supported', type: 'not_found_error' });
    }
  });
});

describe('approvals, questions and cancel through events.create', () => {
  it('resolves an approval as an mcp_approval_request_result', async () => {
    const created = await client.beta.agents.sessions.create({
      agent_id: world.agentIds.approver ?? '',
      environment: none,
      input: 'write it',
    });
    const waiting = await sessionWith(client, created.id, 'requires_action');
    expect(waiting.required_actions).toHaveLength(1);
    const [action] = waiting.required_actions;
    expect(action).toMatchObject({
      type: 'mcp_approval_request',
      request: { type: 'mcp_tool_call', name: 'write_file', arguments: { path: 'a.md', content: 'x' } },
    });
    if (action?.type !== 'mcp_approval_request') throw new Error('expected an approval');
    await client.beta.agents.sessions.events.create(created.id, {
      events: [
        {
          type: 'agent.session.input.mcp_approval_request_result',
          request_id: action.request_id,
          response: { type: 'mcp_tool_call', decision: 'approve' },
        },
      ],
    });
    await sessionWith(client, created.id, 'idle');
    const items = await allItems(created.id);
    expect(items.find((item) => item.type === 'function_call_output')).toMatchObject({ status: 'completed' });
    expect(items.at(-1)).toMatchObject({ content: [{ type: 'output_text', text: 'Done.' }] });
  });

  it('answers a question with a tool_result', async () => {
    const created = await client.beta.agents.sessions.create({
      agent_id: world.agentIds.asker ?? '',
      environment: none,
      input: 'go',
    });
    const waiting = await sessionWith(client, created.id, 'requires_action');
    const [action] = waiting.required_actions;
    expect(action).toMatchObject({
      type: 'function_call',
      name: 'ask_user_question',
      arguments: { questions: [{ question: 'Which format?', options: ['list', 'prose'] }] },
    });
    if (action?.type !== 'function_call') throw new Error('expected a question');
    await client.beta.agents.sessions.events.create(created.id, {
      events: [
        {
          type: 'agent.session.input.tool_result',
          call_id: action.call_id,
          turn_id: action.turn_id,
          success: true,
          output: 'list',
        },
      ],
    });
    await sessionWith(client, created.id, 'idle');
    const items = await allItems(created.id);
    const answer = items.find((item) => item.type === 'function_call_output');
    expect(answer).toMatchObject({ status: 'completed' });
    expect(JSON.stringify(answer)).toContain('list');
  });

  it('cancels the running turn with an input event', async () => {
    const created = await client.beta.agents.sessions.create({
      agent_id: world.agentIds.slow ?? '',
      environment: none,
      input: 'take your time',
    });
    await sessionWith(client, created.id, 'in_progress');
    await client.beta.agents.sessions.events.create(created.id, {
      events: [{ type: 'agent.session.input.cancel' }],
    });
    const session = await sessionWith(client, created.id, 'idle');
    expect(session.error).toBeNull();
    const turns = await client.beta.agents.sessions.turns.list(created.id);
    expect(turns.data[0]).toMatchObject({ status: 'cancelled' });
  });
});

describe('a team session: subagents, their turns and items', () => {
  it('lists two subagents with their own turns and items', async () => {
    const created = await client.beta.agents.sessions.create({
      agent_id: 'assistant',
      environment: none,
      input: 'team, please look at release risks',
    });
    await sessionWith(client, created.id, 'idle', 30_000);
    const subagents = [];
    for await (const subagent of client.beta.agents.sessions.subagents.list(created.id, { order: 'asc' }))
      subagents.push(subagent);
    expect(subagents.map((subagent) => subagent.name).sort()).toEqual(['researcher', 'summarizer']);
    for (const subagent of subagents) {
      expect(subagent).toMatchObject({
        object: 'agent.session.subagent',
        session_id: created.id,
        status: 'closed',
      });
      expect(JSON.stringify(subagent.instructions)).toContain('release risks');
      expect(subagent.closed_at).not.toBeNull();
      expect(
        await client.beta.agents.sessions.subagents.retrieve(subagent.id, { session_id: created.id }),
      ).toEqual(subagent);
      const turns = await client.beta.agents.sessions.subagents.turns.list(subagent.id, {
        session_id: created.id,
      });
      expect(turns.data).toHaveLength(1);
      expect(turns.data[0]).toMatchObject({
        status: 'completed',
        subagent_id: subagent.id,
        session_id: created.id,
      });
      const items = [];
      for await (const item of client.beta.agents.sessions.subagents.items.list(subagent.id, {
        session_id: created.id,
        order: 'asc',
      }))
        items.push(item);
      expect(items[0]).toMatchObject({ type: 'message', role: 'user' });
      expect(items.at(-1)).toMatchObject({ type: 'message', role: 'assistant', phase: 'final_answer' });
      const turnItems = await client.beta.agents.sessions.subagents.turns.items.list(
        turns.data[0]?.id ?? '',
        {
          session_id: created.id,
          subagent_id: subagent.id,
          order: 'asc',
        },
      );
      expect(turnItems.data).toEqual(items.slice(0, turnItems.data.length));
    }
  });
});

describe('artifacts', () => {
  it('lists, retrieves, reads and deletes the files a turn presented', async () => {
    const created = await client.beta.agents.sessions.create({
      agent_id: 'assistant',
      environment: none,
      input: 'write me a report please',
    });
    await sessionWith(client, created.id, 'idle');
    const page = await client.beta.agents.sessions.artifacts.list(created.id);
    expect(page.data).toHaveLength(1);
    const [artifact] = page.data;
    expect(artifact).toMatchObject({
      object: 'agent.session.artifact',
      path: 'reports/report.md',
      session_id: created.id,
    });
    expect(
      await client.beta.agents.sessions.artifacts.retrieve(artifact?.id ?? '', { session_id: created.id }),
    ).toEqual(artifact);
    const content = await client.beta.agents.sessions.artifacts.content(artifact?.id ?? '', {
      session_id: created.id,
    });
    expect(await content.text()).toContain('# Report');
    const deleted = await client.beta.agents.sessions.artifacts.delete(artifact?.id ?? '', {
      session_id: created.id,
    });
    expect(deleted).toEqual({ id: artifact?.id, object: 'agent.session.artifact.deleted', deleted: true });
    expect((await client.beta.agents.sessions.artifacts.list(created.id)).data).toEqual([]);
  });
});

describe('session events over SSE', () => {
  it("drives a turn with the client's stream helper, which answers the question with a tool handler", async () => {
    const session = await client.beta.agents.sessions.create({
      agent_id: world.agentIds.asker ?? '',
      environment: none,
    });
    const seen: AgentSessionEvent[] = [];
    const stream = client.beta.agents.sessions.stream(session.id, {
      input: 'go',
      toolHandlers: { ask_user_question: () => JSON.stringify(['prose']) },
    });
    for await (const event of stream) seen.push(event);
    // Every frame is one the OpenAPI document describes (its `x-event-schema`), closed.
    for (const event of seen) agentsApiSessionEventSchema.parse(event);
    const types = seen.map((event) => event.type);
    expect(types).toContain('agent.session.turn.created');
    expect(types).toContain('agent.session.requires_action');
    expect(types).toContain('agent.session.turn.output_text.delta');
    expect(types.at(-2)).toBe('agent.session.turn.completed');
    expect(types.at(-1)).toBe('agent.session.idle');
    const items = await allItems(session.id);
    expect(JSON.stringify(items.find((item) => item.type === 'function_call_output'))).toContain('prose');
  });

  it('streams a plain turn with events.stream', async () => {
    const session = await client.beta.agents.sessions.create({
      agent_id: world.agentIds.echo ?? '',
      environment: none,
    });
    const stream = await client.beta.agents.sessions.events.stream(session.id);
    await client.beta.agents.sessions.events.create(session.id, {
      events: [
        {
          type: 'agent.session.input.message',
          input: [{ role: 'user', content: [{ type: 'input_text', text: 'stream me' }] }],
        },
      ],
    });
    const seen: AgentSessionEvent[] = [];
    for await (const event of stream) {
      seen.push(event);
      if (event.type === 'agent.session.turn.completed') break;
    }
    expect(seen[0]?.type).toBe('agent.session.idle');
    const text = seen
      .flatMap((event) => (event.type === 'agent.session.turn.output_text.delta' ? [event.delta] : []))
      .join('');
    expect(text).toBe('Let me note that.Noted: stream me');
    expect(
      seen.filter((event) => event.type === 'agent.session.turn.item.done').length,
    ).toBeGreaterThanOrEqual(3);
  });
});

describe("another user's ids", () => {
  it('are 404 on every endpoint', async () => {
    const session = await client.beta.agents.sessions.create({
      agent_id: 'assistant',
      environment: none,
      input: 'write me a report please',
    });
    await sessionWith(client, session.id, 'idle');
    const [turn] = (await client.beta.agents.sessions.turns.list(session.id)).data;
    const [artifact] = (await client.beta.agents.sessions.artifacts.list(session.id)).data;
    const bobClient = world.clientFor(bob.token);
    const s = session.id;
    const t = turn?.id ?? '';
    const a = artifact?.id ?? '';
    const sessions = bobClient.beta.agents.sessions;
    const calls: [string, () => Promise<unknown>][] = [
      ['agent', () => bobClient.beta.agents.retrieve(world.agentIds.echo ?? '')],
      ['update agent', () => bobClient.beta.agents.update(world.agentIds.echo ?? '', { name: 'x' })],
      ['delete agent', () => bobClient.beta.agents.delete(world.agentIds.echo ?? '')],
      [
        'session with agent',
        () => sessions.create({ agent_id: world.agentIds.echo ?? '', environment: none }),
      ],
      ['retrieve', () => sessions.retrieve(s)],
      ['update', () => sessions.update(s, { metadata: {} })],
      ['delete', () => sessions.delete(s)],
      ['events', () => sessions.events.create(s, { events: [{ type: 'agent.session.input.cancel' }] })],
      ['stream', () => sessions.events.stream(s)],
      ['turns', () => sessions.turns.list(s)],
      ['turn', () => sessions.turns.retrieve(t, { session_id: s })],
      ['turn items', () => sessions.turns.items.list(t, { session_id: s })],
      ['items', () => sessions.items.list(s)],
      ['subagents', () => sessions.subagents.list(s)],
      ['subagent', () => sessions.subagents.retrieve('x', { session_id: s })],
      ['subagent items', () => sessions.subagents.items.list('x', { session_id: s })],
      ['subagent turns', () => sessions.subagents.turns.list('x', { session_id: s })],
      ['subagent turn', () => sessions.subagents.turns.retrieve(t, { session_id: s, subagent_id: 'x' })],
      [
        'subagent turn items',
        () => sessions.subagents.turns.items.list(t, { session_id: s, subagent_id: 'x' }),
      ],
      ['artifacts', () => sessions.artifacts.list(s)],
      ['artifact', () => sessions.artifacts.retrieve(a, { session_id: s })],
      ['artifact content', () => sessions.artifacts.content(a, { session_id: s })],
      ['artifact delete', () => sessions.artifacts.delete(a, { session_id: s })],
    ];
    for (const [what, call] of calls) {
      const error = await apiError(call());
      expect(error, what).toBeInstanceOf(OpenAI.NotFoundError);
    }
    // Nothing of alice's changed.
    expect((await client.beta.agents.sessions.retrieve(s)).status).toBe('idle');
    expect((await client.beta.agents.sessions.artifacts.list(s)).data).toHaveLength(1);
  });
});

const sandboxInstalled = 'tools' in locateSandboxTools(undefined);

describe.skipIf(!sandboxInstalled)('environments over the execute sandbox', () => {
  it('runs a hosted-environment session in the sandbox, and withholds execute from a session without one', async () => {
    const hosted = await client.beta.agents.sessions.create({
      agent_id: 'builder',
      environment: { type: 'openai_hosted' },
      input: 'please build the project',
    });
    expect(hosted.environment).toMatchObject({ type: 'openai_hosted', network: { access: 'disabled' } });
    const waiting = await sessionWith(client, hosted.id, 'requires_action');
    const [action] = waiting.required_actions;
    if (action?.type !== 'mcp_approval_request') throw new Error('expected an approval of execute');
    expect(action.request.name).toBe('execute');
    await client.beta.agents.sessions.events.create(hosted.id, {
      events: [
        {
          type: 'agent.session.input.mcp_approval_request_result',
          request_id: action.request_id,
          response: { type: 'mcp_tool_call', decision: 'approve' },
        },
      ],
    });
    await sessionWith(client, hosted.id, 'idle', 30_000);
    const output = (await allItems(hosted.id)).find((item) => item.type === 'function_call_output');
    expect(JSON.stringify(output)).toContain('built a manifest');

    const bare = await client.beta.agents.sessions.create({
      agent_id: 'builder',
      environment: none,
      input: 'please build the project',
    });
    const ended = await eventually('the session without a sandbox to end its turn', 15_000, async () => {
      const session = await client.beta.agents.sessions.retrieve(bare.id);
      return session.status === 'idle' || session.status === 'failed' ? session : undefined;
    });
    // The scripted model plays a call of execute, which this session's model was not offered: its turn fails
    // saying so (a real model would not see the tool at all), and nothing ran.
    expect(ended.status).toBe('failed');
    expect(ended.error).toContain('tool "execute": the tool is not offered to the model');
    const [turn] = (await client.beta.agents.sessions.turns.list(bare.id)).data;
    expect(turn?.error?.message).toContain('not offered');
    expect(JSON.stringify(await allItems(bare.id))).not.toContain('built a manifest');
  });
});
