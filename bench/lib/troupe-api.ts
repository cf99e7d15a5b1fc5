import { readSseFrames } from '../../test/helpers/read-sse-frames.js';
import type { RunEvent } from '../../src/core/records/run-event.js';
import type { Run } from '../../src/core/records/run.js';

/** A bearer-token client of one Troupe server's HTTP API, failing loudly on any unexpected status. */
export interface TroupeApi {
  call<T>(method: string, pathname: string, body?: unknown, expected?: number): Promise<T>;
  /** A new conversation with `agentId`; its id. */
  createConversation(agentId: string): Promise<string>;
  /** Posts a user message; the run it started. */
  postMessage(conversationId: string, content: string): Promise<Run>;
  /** Long-polls `GET /api/agent/runs/{id}/await` until the run ends (or `timeoutMs`). */
  awaitRun(runId: string, timeoutMs: number): Promise<Run>;
  getRun(runId: string): Promise<Run>;
  /** Every stored event of an ended run (its SSE stream replays them and closes after `end`). */
  events(runId: string): Promise<RunEvent[]>;
}

export function troupeApi(baseUrl: string, token: string): TroupeApi {
  async function call<T>(method: string, pathname: string, body?: unknown, expected = 200): Promise<T> {
    const response = await fetch(`${baseUrl}${pathname}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    if (response.status !== expected)
      throw new Error(
        `${method} ${pathname}: expected HTTP ${expected}, got ${response.status}: ${text.slice(0, 500)}`,
      );
    return JSON.parse(text) as T;
  }

  return {
    call,
    async createConversation(agentId) {
      return (
        await call<{ conversation: { id: string } }>('POST', '/api/conversations', { agent_id: agentId }, 201)
      ).conversation.id;
    },
    async postMessage(conversationId, content) {
      return (
        await call<{ run: Run }>('POST', `/api/conversations/${conversationId}/messages`, { content }, 202)
      ).run;
    },
    async awaitRun(runId, timeoutMs) {
      const answer = await call<{ run: Run; wait_timed_out: boolean }>(
        'GET',
        `/api/agent/runs/${runId}/await?timeout_ms=${timeoutMs}`,
      );
      if (answer.wait_timed_out)
        throw new Error(`run ${runId} still ${answer.run.status} after ${timeoutMs} ms`);
      return answer.run;
    },
    async getRun(runId) {
      return (await call<{ run: Run }>('GET', `/api/agent/runs/${runId}`)).run;
    },
    async events(runId) {
      const response = await fetch(`${baseUrl}/api/agent/runs/${runId}/events`, {
        headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
      });
      if (response.status !== 200 || !response.body)
        throw new Error(`SSE of ${runId} answered ${response.status}`);
      const events: RunEvent[] = [];
      await readSseFrames(response.body as ReadableStream<Uint8Array>, (frames) => {
        for (const frame of frames) events.push(JSON.parse(frame.data) as RunEvent);
      });
      return events;
    },
  };
}
