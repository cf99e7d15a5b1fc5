import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { Run } from '../../src/core/records/run.js';
import { DELEGATION_EXTENSION_URI } from '../../src/core/remote-experts/delegation-context.js';
import { startTestServer, type TestServer } from './start-test-server.js';

/**
 * Two real Troupe servers on loopback for the remote-expert suites (docs/interoperability.md): server A (`local`)
 * registers experts of server B (`remote`) by their agent cards.
 */

/** Server A's key for caller claims; server B trusts it under the issuer name `server-a`. */
export const callerKeys = generateKeyPairSync('ed25519');

const SLOW_SCENARIO = `description: A remote expert that takes its time.
rules:
  - steps:
      - delay_ms: 4000
        chunk_size: 5
        text: "Slowly considered: {{input}}"
`;

const CALLER_SCENARIO = `description: Delegates every message to the remote analyst.
rules:
  - steps:
      - tool_calls:
          - name: delegate
            args: { expert: remote-analyst, task: "{{input}}" }
      - text: "Remote said: {{last_tool_result}}"
`;

/**
 * Server A's grader of remote results: it grades only what the remote's evidence shows (a remote Troupe reports
 * it), asks once for a revision, and accepts the revision, which answers the reviewer.
 */
const REMOTE_GRADER_SCENARIO = `description: Grades a remote expert's result from its reported evidence.
rules:
  - when: { matches: '## Final output of the agent\\n[\\s\\S]*asks for a revision[\\s\\S]*"reported_by":"troupe"' }
    steps:
      - text: '{"verdict": "satisfied", "reasons": ["The revision answers the reviewer; the remote reported its run."]}'
  - when: { contains: '"reported_by":"troupe"' }
    steps:
      - text: '{"verdict": "needs_revision", "reasons": ["Name the biggest risk first; then the rest."]}'
  - steps:
      - text: '{"verdict": "failed", "reasons": ["The remote reported no evidence of its work."]}'
`;

export async function json<T>(response: Response): Promise<T> {
  const body = (await response.json()) as T;
  if (!response.ok) throw new Error(`HTTP ${response.status}: ${JSON.stringify(body)}`);
  return body;
}

/** Registers the pair's beforeAll/afterAll and returns the servers and the helpers that talk to them. */
export function useRemoteExpertPair() {
  let local: TestServer;
  let remote: TestServer;
  let scenarioDir: string;

  async function register(
    slug: string,
    cardUrl: string,
    headers: Record<string, string>,
    extra: object = {},
  ) {
    return local.api('/api/agent', {
      method: 'POST',
      body: JSON.stringify({
        slug,
        name: `Remote ${slug}`,
        description: 'An expert of another Troupe server',
        backend: 'a2a',
        status: 'published',
        config: { a2a: { card_url: cardUrl, headers } },
        ...extra,
      }),
    });
  }

  const cardOf = (slug: string) => `${remote.url}/a2a/${slug}/.well-known/agent-card.json`;

  async function delegate(expert: string, task: string, waitMs = 30_000, budget?: Record<string, number>) {
    return json<{
      status: string;
      run_id: string;
      output: string | null;
      error?: string;
      error_type?: string;
    }>(
      await local.api(`/api/delegate?wait_ms=${waitMs}`, {
        method: 'POST',
        body: JSON.stringify({ expert, task, ...(budget ? { budget } : {}) }),
      }),
    );
  }

  async function remoteRun(id: string): Promise<Run | undefined> {
    return remote.troupe.storage.runs.get(id);
  }

  /** Waits, by polling storage, until the remote run reaches a status (the remote reacts asynchronously). */
  async function remoteStatus(id: string, wanted: Run['status']): Promise<Run['status'] | undefined> {
    for (let attempt = 0; attempt < 200; attempt += 1) {
      const run = await remoteRun(id);
      if (run?.status === wanted) return wanted;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return (await remoteRun(id))?.status;
  }

  /** The remote task id of a local run, once its `a2a_remote_task` tool call was recorded. */
  async function remoteTaskOf(runId: string): Promise<string> {
    for (let attempt = 0; attempt < 200; attempt += 1) {
      const events = await local.troupe.storage.events.list(runId, 0, 100);
      const call = events
        .filter((event) => event.type === 'tool_call')
        .find((event) => event.payload.name === 'a2a_remote_task');
      // A tool call's `args` are whatever the tool was called with: read as such.
      const args: unknown = call?.payload.args;
      const taskId =
        typeof args === 'object' && args !== null && 'task_id' in args ? args.task_id : undefined;
      if (typeof taskId === 'string') return taskId;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`run ${runId} never recorded its remote task`);
  }

  /** A raw A2A 1.0 SendMessage to the remote's analyst with the delegation extension's metadata. */
  async function sendRaw(context: Record<string, unknown>) {
    const response = await remote.api('/a2a/analyst', {
      method: 'POST',
      headers: { 'A2A-Version': '1.0', 'A2A-Extensions': DELEGATION_EXTENSION_URI },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: {
          message: {
            messageId: randomUUID(),
            role: 'ROLE_USER',
            parts: [{ text: 'From another client' }],
            metadata: { [DELEGATION_EXTENSION_URI]: context },
          },
        },
      }),
    });
    return (await response.json()) as {
      result?: { task?: { id: string } };
      error?: { code: number; message: string };
    };
  }

  beforeAll(async () => {
    scenarioDir = mkdtempSync(path.join(os.tmpdir(), 'troupe-remote-scenarios-'));
    cpSync(path.resolve(import.meta.dirname, '../../scenarios'), scenarioDir, { recursive: true });
    writeFileSync(path.join(scenarioDir, 'slow.yaml'), SLOW_SCENARIO);
    writeFileSync(path.join(scenarioDir, 'caller.yaml'), CALLER_SCENARIO);
    writeFileSync(path.join(scenarioDir, 'remote-grader.yaml'), REMOTE_GRADER_SCENARIO);
    remote = await startTestServer({
      scenarioDir,
      a2aIdentity: { signer: undefined, trustedCallers: new Map([['server-a', callerKeys.publicKey]]) },
    });
    local = await startTestServer({
      scenarioDir,
      a2aIdentity: { signer: { issuer: 'server-a', key: callerKeys.privateKey }, trustedCallers: new Map() },
    });
    await json(
      await remote.api('/api/agent', {
        method: 'POST',
        body: JSON.stringify({
          slug: 'slowpoke',
          name: 'Slowpoke',
          status: 'published',
          config: { model: 'scripted:slow' },
        }),
      }),
    );
    const authorization = `Bearer ${remote.token}`;
    await json(
      await register('remote-analyst', cardOf('analyst'), { authorization }, { visibility: 'public' }),
    );
    await json(await register('remote-slow', cardOf('slowpoke'), { authorization }));
  });
  afterAll(async () => {
    await local?.close();
    await remote?.close();
    rmSync(scenarioDir, { recursive: true, force: true });
  });

  return {
    local: () => local,
    remote: () => remote,
    register,
    cardOf,
    delegate,
    remoteRun,
    remoteStatus,
    remoteTaskOf,
    sendRaw,
  };
}
