import { TaskState } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  a2aClient,
  asTask,
  codeOf,
  collect,
  outputText,
  partsText,
  userParts,
  userText,
} from '../helpers/a2a-client.js';
import { pendingOf, states, useA2aExpertServer } from '../helpers/use-a2a-expert-server.js';
import type { TestServer } from '../helpers/start-test-server.js';

/**
 * A2A 1.0 over real HTTP on loopback, driven by the official `@a2a-js/sdk` client: answering an
 * `input-required` task with data and text parts, and the views of a task (history, artifacts).
 */
const a2a = useA2aExpertServer();
const { createAgent } = a2a;
let server: TestServer;
let analyst: Client;
beforeAll(() => {
  server = a2a.server();
  analyst = a2a.analyst();
});

describe('answering an input-required task over A2A', () => {
  it('a data part {"approve": true} decides the approval and the task completes', async () => {
    const careful = await a2aClient(`${server.url}/a2a/careful/`, server.token);
    const parked = asTask(await careful.sendMessage(userText('write this down')));
    expect(parked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(pendingOf(parked)).toMatchObject([{ kind: 'approval' }]);
    // Text is not a decision: the error says what the task waits for.
    expect(await codeOf(() => careful.sendMessage(userText('yes please', { taskId: parked.id })))).toBe(
      -32602,
    );
    const done = asTask(
      await careful.sendMessage(userParts([{ data: { approve: true } }], { taskId: parked.id })),
    );
    expect(done.id).toBe(parked.id);
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(outputText(done)).toContain('You said: "write this down"');
    const approvals = (await (await server.api(`/api/agent/runs/${parked.id}/approvals`)).json()) as {
      approvals: { status: string; decided_by: string }[];
    };
    expect(approvals.approvals.map((approval) => approval.status)).toEqual(['approved']);
    // Once working or ended, a message to the task is no answer.
    expect(
      await codeOf(() =>
        careful.sendMessage(userParts([{ data: { approve: true } }], { taskId: parked.id })),
      ),
    ).toBe(-32004);
  });

  it('a rejection streams on to the end', async () => {
    const careful = await a2aClient(`${server.url}/a2a/careful/`, server.token);
    const parked = asTask(await careful.sendMessage(userText('do not write this')));
    const events = await collect(
      careful.sendMessageStream(
        userParts([{ data: { approve: false, comment: 'not now' } }], { taskId: parked.id }),
      ),
    );
    expect(events[0]?.payload?.$case).toBe('task');
    expect(states(events).at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
    const approvals = (await (await server.api(`/api/agent/runs/${parked.id}/approvals`)).json()) as {
      approvals: { status: string; comment: string | null }[];
    };
    expect(approvals.approvals).toMatchObject([{ status: 'rejected', comment: 'not now' }]);
  });

  it('text parts answer a question', async () => {
    await createAgent({
      name: 'Asking expert',
      slug: 'asker',
      status: 'published',
      config: { model: 'scripted:demo', tools: ['ask_user_question'] },
    });
    const asker = await a2aClient(`${server.url}/a2a/asker/`, server.token);
    const parked = asTask(await asker.sendMessage(userText('ask me about the format')));
    expect(parked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(partsText(parked.status?.message?.parts)).toContain('Which format should the summary have?');
    expect(pendingOf(parked)).toMatchObject([{ kind: 'question' }]);
    expect(
      await codeOf(() => asker.sendMessage(userParts([{ data: { approve: true } }], { taskId: parked.id }))),
    ).toBe(-32602);
    const done = asTask(await asker.sendMessage(userText('bullet points', { taskId: parked.id })));
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(outputText(done)).toContain('Answer: bullet points');
  });
});

describe('task views', () => {
  it("keeps the client's messageId in history and lists artifacts only when asked", async () => {
    const messageId = `client-${Date.now()}`;
    const task = asTask(await analyst.sendMessage(userText('Keep my id', { messageId })));
    expect(task.history[0]?.messageId).toBe(messageId);
    expect((await analyst.getTask({ tenant: '', id: task.id })).history[0]?.messageId).toBe(messageId);
    const base = {
      tenant: '',
      contextId: task.contextId,
      status: 0,
      pageToken: '',
      statusTimestampAfter: undefined,
    };
    const bare = await analyst.listTasks(base);
    expect(bare.tasks[0]?.id).toBe(task.id);
    expect(bare.tasks[0]?.artifacts).toEqual([]);
    const full = await analyst.listTasks({ ...base, includeArtifacts: true });
    expect(outputText(full.tasks[0] ?? task)).toContain('Analysis of: Keep my id');
  });
});
