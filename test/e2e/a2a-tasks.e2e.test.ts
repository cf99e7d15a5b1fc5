import { TaskState } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  a2aClient,
  asTask,
  collect,
  outputText,
  partsText,
  streamedOutput,
  userText,
} from '../helpers/a2a-client.js';
import { states, useA2aExpertServer } from '../helpers/use-a2a-expert-server.js';
import type { TestServer } from '../helpers/start-test-server.js';

/**
 * A2A 1.0 over real HTTP on loopback, driven by the official `@a2a-js/sdk` client: cards, blocking and
 * streaming sends, tasks listed, cancelled and subscribed to, approvals as `input-required`.
 */
const a2a = useA2aExpertServer();

let server: TestServer;
let analyst: Client;
beforeAll(() => {
  server = a2a.server();
  analyst = a2a.analyst();
});

describe('agent cards', () => {
  it('resolves an expert card from its base URL, with its endpoint and the bearer scheme', async () => {
    const card = await analyst.getAgentCard();
    expect(card.name).toBe('Analyst');
    expect(card.skills.map((skill) => skill.id)).toEqual(['analyst']);
    expect(card.capabilities?.streaming).toBe(true);
    expect(
      card.supportedInterfaces.map((entry) => [entry.url, entry.protocolBinding, entry.protocolVersion]),
    ).toEqual([
      [`${server.url}/a2a/analyst`, 'JSONRPC', '1.0'],
      [`${server.url}/a2a/analyst`, 'JSONRPC', '0.3'],
    ]);
    const scheme = card.securitySchemes.troupe_token?.scheme;
    expect(scheme?.$case === 'httpAuthSecurityScheme' ? scheme.value.scheme : undefined).toBe('Bearer');
    expect(card.securityRequirements[0]?.schemes).toHaveProperty('troupe_token');
  });

  it('the server card lists the published experts as skills and points at their cards', async () => {
    const root = await a2aClient(server.url, server.token);
    const card = await root.getAgentCard();
    expect(card.skills.map((skill) => skill.id)).toEqual(['analyst', 'careful', 'slowpoke']);
    expect(card.supportedInterfaces[0]?.url).toBe(`${server.url}/a2a`);
    const experts = card.capabilities?.extensions.find((entry) => entry.uri === 'urn:troupe:a2a:experts:v1')
      ?.params?.experts as { id: string; card_url: string }[];
    expect(experts.find((expert) => expert.id === 'analyst')?.card_url).toBe(
      `${server.url}/a2a/analyst/.well-known/agent-card.json`,
    );
    // The server endpoint routes by tenant = the skill id.
    const task = asTask(
      await root.sendMessage(userText('What should we do about churn?', { tenant: 'analyst' })),
    );
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(outputText(task)).toContain('Analysis of: What should we do about churn?');
  });
});

describe('tasks', () => {
  it('SendMessage blocks until the run completes and returns the expert answer', async () => {
    const task = asTask(await analyst.sendMessage(userText('Should we open a second office?')));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(outputText(task)).toContain('Analysis of: Should we open a second office?');
    expect(partsText(task.status?.message?.parts)).toBe(outputText(task));
    expect(task.history.map((message) => partsText(message.parts))[0]).toBe(
      'Should we open a second office?',
    );
    // task = run, contextId = conversation.
    const run = (await (await server.api(`/api/agent/runs/${task.id}`)).json()) as {
      run: { conversation_id: string; status: string };
    };
    expect(run.run).toMatchObject({ conversation_id: task.contextId, status: 'completed' });
    const again = await analyst.getTask({ tenant: '', id: task.id, historyLength: 0 });
    expect(again.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(outputText(again)).toBe(outputText(task));
    expect(again.history).toEqual([]);
  });

  it('a message with a known contextId continues that conversation', async () => {
    const first = asTask(await analyst.sendMessage(userText('First question')));
    const second = asTask(
      await analyst.sendMessage(userText('Follow-up question', { contextId: first.contextId })),
    );
    expect(second.contextId).toBe(first.contextId);
    expect(second.id).not.toBe(first.id);
    const runs = (await (await server.api(`/api/conversations/${first.contextId}/runs`)).json()) as {
      runs: { id: string }[];
    };
    expect(runs.runs.map((run) => run.id).sort()).toEqual([first.id, second.id].sort());
    const listed = await analyst.listTasks({
      tenant: '',
      contextId: first.contextId,
      status: 0,
      pageToken: '',
      statusTimestampAfter: undefined,
    });
    expect(listed.tasks.map((task) => task.id)).toEqual([second.id, first.id]);
    expect(listed.totalSize).toBe(2);
  });

  it('a replayed messageId answers with the task it started', async () => {
    const messageId = 'replayed-message-1';
    const first = asTask(await analyst.sendMessage(userText('Once only', { messageId })));
    const again = asTask(await analyst.sendMessage(userText('Once only', { messageId })));
    expect(again.id).toBe(first.id);
  });

  it('SendStreamingMessage streams status and artifact updates, ending in completed', async () => {
    const events = await collect(analyst.sendMessageStream(userText('Stream me an analysis')));
    expect(events[0]?.payload?.$case).toBe('task');
    const seen = states(events);
    expect(seen).toContain(TaskState.TASK_STATE_WORKING);
    expect(seen.at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(events.at(-1)?.payload?.$case).toBe('statusUpdate');
    const taskId = events[0]?.payload?.$case === 'task' ? events[0].payload.value.id : '';
    const task = await analyst.getTask({ tenant: '', id: taskId });
    expect(streamedOutput(events)).toBe(outputText(task));
    expect(outputText(task)).toContain('Analysis of: Stream me an analysis');
  });

  it('ListTasks pages through the caller tasks, newest first, and filters by state', async () => {
    const all = await analyst.listTasks({
      tenant: '',
      contextId: '',
      status: 0,
      pageToken: '',
      statusTimestampAfter: undefined,
    });
    expect(all.totalSize).toBeGreaterThanOrEqual(5);
    expect(all.nextPageToken).toBe('');
    const first = await analyst.listTasks({
      tenant: '',
      contextId: '',
      status: 0,
      pageSize: 2,
      pageToken: '',
      statusTimestampAfter: undefined,
    });
    expect(first.tasks).toHaveLength(2);
    expect(first.nextPageToken).not.toBe('');
    const second = await analyst.listTasks({
      tenant: '',
      contextId: '',
      status: 0,
      pageSize: 2,
      pageToken: first.nextPageToken,
      statusTimestampAfter: undefined,
    });
    expect(second.tasks.map((task) => task.id)).toEqual(all.tasks.slice(2, 4).map((task) => task.id));
    const completed = await analyst.listTasks({
      tenant: '',
      contextId: '',
      status: TaskState.TASK_STATE_COMPLETED,
      pageToken: '',
      statusTimestampAfter: undefined,
    });
    expect(completed.totalSize).toBe(all.totalSize);
    const working = await analyst.listTasks({
      tenant: '',
      contextId: '',
      status: TaskState.TASK_STATE_WORKING,
      pageToken: '',
      statusTimestampAfter: undefined,
    });
    expect(working.tasks).toEqual([]);
  });

  it('CancelTask cancels a running task; its stream ends canceled', async () => {
    const slow = await a2aClient(`${server.url}/a2a/slowpoke/`, server.token);
    let taskId = '';
    let cancelled: TaskState | undefined;
    const events = await collect(slow.sendMessageStream(userText('please be slow')), async (event) => {
      if (event.payload?.$case === 'task') taskId = event.payload.value.id;
      // Cancel once the answer is visibly streaming.
      if (event.payload?.$case === 'artifactUpdate' && cancelled === undefined) {
        cancelled = (await slow.cancelTask({ tenant: '', id: taskId, metadata: undefined })).status?.state;
      }
    });
    expect([TaskState.TASK_STATE_CANCELED, TaskState.TASK_STATE_WORKING]).toContain(cancelled);
    expect(states(events).at(-1)).toBe(TaskState.TASK_STATE_CANCELED);
    const task = await slow.getTask({ tenant: '', id: taskId });
    expect(task.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    // Cancel is idempotent.
    expect((await slow.cancelTask({ tenant: '', id: taskId, metadata: undefined })).status?.state).toBe(
      TaskState.TASK_STATE_CANCELED,
    );
  });

  it('an approval is input-required; once approved, a subscription sees the task complete', async () => {
    const careful = await a2aClient(`${server.url}/a2a/careful/`, server.token);
    const parked = asTask(await careful.sendMessage(userText('note this down')));
    expect(parked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(partsText(parked.status?.message?.parts)).toContain('write_file');
    const approvals = (await (await server.api(`/api/agent/runs/${parked.id}/approvals`)).json()) as {
      approvals: { tool_call_id: string }[];
    };
    const toolCallId = approvals.approvals[0]?.tool_call_id ?? '';
    const events = await collect(
      careful.resubscribeTask({ tenant: '', id: parked.id }),
      async (_event, index) => {
        if (index !== 0) return;
        const decided = await server.api(`/api/agent/runs/${parked.id}/approvals/${toolCallId}`, {
          method: 'POST',
          body: JSON.stringify({ decision: 'approve' }),
        });
        expect(decided.status).toBe(200);
      },
    );
    const seen = states(events);
    expect(seen[0]).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(seen).toContain(TaskState.TASK_STATE_WORKING);
    expect(seen.at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(outputText(await careful.getTask({ tenant: '', id: parked.id }))).toContain(
      'You said: "note this down"',
    );
  });
});
