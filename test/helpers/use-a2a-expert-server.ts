import { TaskState, type Part, type StreamResponse } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { afterAll, beforeAll, expect } from 'vitest';
import { a2aClient } from './a2a-client.js';
import { startTestServer, type TestServer } from './start-test-server.js';

/**
 * One server on loopback for the A2A 1.0 suites: the demo's analyst through the official `@a2a-js/sdk` client, a
 * slow expert to cancel mid-answer and a careful one whose tool calls wait for approval.
 */
export function useA2aExpertServer() {
  let server: TestServer;
  let analyst: Client;

  async function createAgent(body: Record<string, unknown>): Promise<void> {
    const response = await server.api('/api/agent', { method: 'POST', body: JSON.stringify(body) });
    expect(response.status).toBe(201);
  }

  beforeAll(async () => {
    server = await startTestServer();
    // The demo's `slow` rule streams for ~8 s: room to cancel mid-answer.
    await createAgent({
      name: 'Slow expert',
      slug: 'slowpoke',
      status: 'published',
      config: { model: 'scripted:demo', tools: [] },
    });
    // `default` approval mode: the demo's default rule calls write_file, which waits for a human.
    await createAgent({
      name: 'Careful expert',
      slug: 'careful',
      status: 'published',
      config: { model: 'scripted:demo', tools: ['read_file', 'write_file'], tool_approval_mode: 'default' },
    });
    analyst = await a2aClient(`${server.url}/a2a/analyst/`, server.token);
  });
  afterAll(async () => {
    await server.close();
  });

  return { server: () => server, analyst: () => analyst, createAgent };
}

export function states(events: readonly StreamResponse[]): TaskState[] {
  return events.flatMap((event) => {
    if (event.payload?.$case === 'task')
      return [event.payload.value.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED];
    if (event.payload?.$case === 'statusUpdate')
      return [event.payload.value.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED];
    return [];
  });
}

/** The `pending` list of an input-required status message's data part. */
export function pendingOf(task: { status?: { message?: { parts: Part[] } | undefined } | undefined }) {
  const data = task.status?.message?.parts.find((part) => part.content?.$case === 'data')?.content;
  return (
    ((data?.$case === 'data' ? data.value : {}) as { pending?: { tool_call_id: string; kind: string }[] })
      .pending ?? []
  );
}
