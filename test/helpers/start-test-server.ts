import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig, type TroupeConfig } from '../../src/config.js';
import { createTroupe, listen, type Troupe } from '../../src/create-troupe.js';
import { seedDemo } from '../../src/runtime/seed-demo.js';
import { readSseFrames, type SseFrame } from './read-sse-frames.js';

export interface TestServer {
  url: string;
  token: string;
  troupe: Troupe;
  dataDir: string;
  /** `fetch` against the server with the demo admin's bearer token. */
  api(pathname: string, init?: RequestInit): Promise<Response>;
  /** A new conversation with `agentId` and its first message: the ids of both. */
  chat(content: string, agentId?: string): Promise<{ conversationId: string; runId: string }>;
  close(): Promise<void>;
}

/**
 * The real composition (`createTroupe`) on a fresh data dir, listening on a free loopback port, with the
 * demo data seeded: what `npm start` does, minus the console output.
 */
export async function startTestServer(overrides: Partial<TroupeConfig> = {}): Promise<TestServer> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'troupe-e2e-'));
  const config: TroupeConfig = {
    ...loadConfig(
      { TROUPE_DATA_DIR: dataDir, TROUPE_PORT: '0', TROUPE_CHECK_RESPONSES: '1' },
      path.resolve(import.meta.dirname, '../..'),
    ),
    ...overrides,
  };
  const troupe = await createTroupe(config);
  const { user } = await seedDemo(troupe.storage);
  if (!user) throw new Error('demo seed did not create the demo user');
  const { token } = await troupe.auth.issueToken(user.id, 'e2e');
  const server = await listen(troupe);
  const api = (pathname: string, init: RequestInit = {}): Promise<Response> =>
    fetch(`${server.url}${pathname}`, {
      ...init,
      headers: {
        authorization: `Bearer ${token}`,
        ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(init.headers as Record<string, string> | undefined),
      },
    });
  return {
    url: server.url,
    token,
    troupe,
    dataDir,
    api,
    async chat(content, agentId = 'assistant') {
      const { conversation } = (await (
        await api('/api/conversations', { method: 'POST', body: JSON.stringify({ agent_id: agentId }) })
      ).json()) as { conversation: { id: string } };
      const { run } = (await (
        await api(`/api/conversations/${conversation.id}/messages`, {
          method: 'POST',
          body: JSON.stringify({ content }),
        })
      ).json()) as { run: { id: string } };
      return { conversationId: conversation.id, runId: run.id };
    },
    async close() {
      await server.close();
      await troupe.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export type { SseFrame } from './read-sse-frames.js';

/** Reads an SSE response to its end (the server closes after `end`), parsing frames as a browser would. */
export async function readSse(response: Response, onFrame?: (frame: SseFrame) => void): Promise<SseFrame[]> {
  if (!response.body) throw new Error('no body');
  const frames: SseFrame[] = [];
  await readSseFrames(response.body, (chunk) => {
    for (const frame of chunk) {
      frames.push(frame);
      onFrame?.(frame);
    }
  });
  return frames;
}
