import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Run } from '../../src/core/records/run.js';
import { DELEGATION_EXTENSION_URI } from '../../src/core/remote-experts/delegation-context.js';
import { signCallerClaim } from '../../src/core/remote-experts/caller-claim.js';
import { readSse, startTestServer, type TestServer } from '../helpers/start-test-server.js';

/**
 * Remote A2A experts (docs/interoperability.md) between two real Troupe servers on loopback: server A registers an expert
 * of server B by its agent card; A's runs delegate to it, stream its task, cancel it and resume it.
 */
let local: TestServer;
let remote: TestServer;
let scenarioDir: string;
/** Server A's key for caller claims; server B trusts it under the issuer name `server-a`. */
const callerKeys = generateKeyPairSync('ed25519');

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

async function json<T>(response: Response): Promise<T> {
  const body = (await response.json()) as T;
  if (!response.ok) throw new Error(`HTTP ${response.status}: ${JSON.stringify(body)}`);
  return body;
}

async function register(slug: string, cardUrl: string, headers: Record<string, string>, extra: object = {}) {
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
  return json<{ status: string; run_id: string; output: string | null; error?: string; error_type?: string }>(
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
    const taskId = typeof args === 'object' && args !== null && 'task_id' in args ? args.task_id : undefined;
    if (typeof taskId === 'string') return taskId;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`run ${runId} never recorded its remote task`);
}

beforeAll(async () => {
  scenarioDir = mkdtempSync(path.join(os.tmpdir(), 'troupe-remote-scenarios-'));
  cpSync(path.resolve(import.meta.dirname, '../../scenarios'), scenarioDir, { recursive: true });
  writeFileSync(path.join(scenarioDir, 'slow.yaml'), SLOW_SCENARIO);
  writeFileSync(path.join(scenarioDir, 'caller.yaml'), CALLER_SCENARIO);
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

describe('registering a remote expert', () => {
  it('keeps its credentials write-only: redacted on read, kept when the placeholder is sent back', async () => {
    const { agent } = await json<{
      agent: { id: string; config: { a2a: { headers: Record<string, string> } } };
    }>(await local.api('/api/agent/remote-analyst'));
    expect(agent.config.a2a.headers).toEqual({ authorization: '[redacted]' });
    await json(
      await local.api(`/api/agent/${agent.id}`, {
        method: 'PUT',
        body: JSON.stringify({ config: agent.config }),
      }),
    );
    expect((await delegate('remote-analyst', 'Assess the risks of a price change')).status).toBe('completed');
    // The placeholder names no stored value once the card URL changes: it would send the secret elsewhere.
    const moved = await local.api(`/api/agent/${agent.id}`, {
      method: 'PUT',
      body: JSON.stringify({
        config: { a2a: { ...agent.config.a2a, card_url: 'https://elsewhere.example/card.json' } },
      }),
    });
    expect(moved.status).toBe(400);
    expect(((await moved.json()) as { error: { code: string } }).error.code).toBe('validation_failed');
  });

  it('is for admins only, and config.a2a only for backend a2a', async () => {
    const bob = await local.troupe.storage.users.create({ name: 'bob-remote', role: 'member' });
    const { token } = await local.troupe.auth.issueToken(bob.id, 'e2e');
    const asBob = (body: object) =>
      fetch(`${local.url}/api/agent`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const refused = await asBob({
      name: 'Mine',
      backend: 'a2a',
      config: { a2a: { card_url: cardOf('analyst') } },
    });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('forbidden');
    const misplaced = await asBob({ name: 'Chatty', config: { a2a: { card_url: cardOf('analyst') } } });
    expect(misplaced.status).toBe(400);
    const noCard = await register('remote-nocard', '', {});
    expect(noCard.status).toBe(400);
    const notHttp = await register('remote-file', 'file:///etc/passwd', {});
    expect(notHttp.status).toBe(400);
  });
});

describe('delegating to a remote expert', () => {
  it('runs the task on the remote server and answers with its result', async () => {
    const answer = await delegate('remote-analyst', 'Assess the risks of moving to annual billing');
    expect(answer.status).toBe('completed');
    expect(answer.output).toContain('Risk analysis for: Assess the risks of moving to annual billing');
    const taskId = await remoteTaskOf(answer.run_id);
    const task = await remoteRun(taskId);
    expect(task?.status).toBe('completed');
    expect(task?.input.message).toBe('Assess the risks of moving to annual billing');
  });

  it("streams the remote task into a main agent's run and status panel through the delegate tool", async () => {
    await json(
      await local.api('/api/agent', {
        method: 'POST',
        body: JSON.stringify({ slug: 'caller', name: 'Caller', config: { model: 'scripted:caller' } }),
      }),
    );
    const { conversationId, runId } = await local.chat('What are the risks of a rewrite?', 'caller');
    const frames = await readSse(await local.api(`/api/agent/runs/${runId}/events`));
    const end = JSON.parse(frames.at(-1)?.data ?? '{}') as { payload: { status: string; output: string } };
    expect(end.payload.status).toBe('completed');
    expect(end.payload.output).toContain('Risk analysis for: What are the risks of a rewrite?');
    const updates = frames
      .filter((frame) => frame.event === 'subagent_update')
      .map(
        (frame) =>
          (JSON.parse(frame.data) as { payload: { kind: string; slug: string; status: string } }).payload,
      );
    expect(updates.map((update) => `${update.kind}:${update.slug}`)).toContain('delegation:remote-analyst');
    expect(updates.at(-1)?.status).toBe('completed');
    const panel = await json<{ subagents: { slug: string; status: string; run_id: string }[] }>(
      await local.api(`/api/conversations/${conversationId}/subagents`),
    );
    const child = panel.subagents.find((entry) => entry.slug === 'remote-analyst');
    expect(child?.status).toBe('completed');
    const childFrames = await readSse(await local.api(`/api/agent/runs/${child?.run_id ?? ''}/events`));
    const streamed = childFrames
      .filter((frame) => frame.event === 'message_delta')
      .map((frame) => (JSON.parse(frame.data) as { payload: { text: string } }).payload.text)
      .join('');
    expect(streamed).toContain('Risk analysis for');
  });

  it('is refused to a user the expert is not visible to, like a local expert', async () => {
    const carol = await local.troupe.storage.users.create({ name: 'carol-remote', role: 'member' });
    const { token } = await local.troupe.auth.issueToken(carol.id, 'e2e');
    const response = await fetch(`${local.url}/api/delegate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ expert: 'remote-slow', task: 'Think about it' }),
    });
    const body = (await response.json()) as { status: string; error?: string };
    expect(body.status).toBe('failed');
    expect(body.error).toMatch(/not found or access denied/i);
  });

  it('cancels the remote task when the delegation is cancelled', async () => {
    const started = await delegate('remote-slow', 'Take your time', 0);
    const taskId = await remoteTaskOf(started.run_id);
    expect(await remoteStatus(taskId, 'running')).toBe('running');
    await json(await local.api(`/api/agent/runs/${started.run_id}/cancel`, { method: 'POST' }));
    expect(await remoteStatus(taskId, 'cancelled')).toBe('cancelled');
    const run = await local.troupe.storage.runs.get(started.run_id);
    expect(['cancel_requested', 'cancelled']).toContain(run?.status);
  });

  it('resumes a handed-back run by its remote task id instead of sending the task again', async () => {
    const started = await delegate('remote-slow', 'Resume me', 0);
    const taskId = await remoteTaskOf(started.run_id);
    // A worker shutdown hands the run back as pending, with the remote task still working.
    await local.troupe.executor.stop();
    expect((await local.troupe.storage.runs.get(started.run_id))?.status).toBe('pending');
    await local.troupe.executor.start();
    await local.troupe.executor.execute(started.run_id);
    const finished = await local.troupe.storage.runs.get(started.run_id);
    expect(finished?.status).toBe('completed');
    expect(finished?.output).toBe('Slowly considered: Resume me');
    const remoteTasks = (
      await remote.troupe.storage.runs.listByConversation((await remoteRun(taskId))?.conversation_id ?? '')
    ).filter((run) => run.input.message === 'Resume me');
    expect(remoteTasks.map((run) => run.id)).toEqual([taskId]);
  });

  it('ends failed with a clear error when the remote cannot be reached', async () => {
    await json(await register('remote-gone', 'http://127.0.0.1:9/a2a/none/.well-known/agent-card.json', {}));
    const answer = await delegate('remote-gone', 'Anyone there?');
    expect(answer.status).toBe('failed');
    expect(answer.error_type).toBe('remote_expert_unavailable');
    expect(answer.error).toMatch(/could not be reached/);
  });
});

describe('the contract between two Troupe servers', () => {
  it('sends the remaining budget, the deadline and a signed caller; the remote keeps them; usage comes back', async () => {
    const started = Date.now();
    const answer = await delegate('remote-analyst', 'Weigh the options for the launch', 30_000, {
      tokens: 40_000,
      model_calls: 4,
      wall_ms: 20_000,
    });
    expect(answer.status).toBe('completed');
    const taskId = await remoteTaskOf(answer.run_id);
    const task = await remoteRun(taskId);
    // The remote run is budgeted by what the delegation had left, and ends by its deadline.
    const ledger = await remote.troupe.storage.budgets.get(taskId);
    expect(ledger?.limits).toMatchObject({ tokens: 40_000, model_calls: 4 });
    expect(Date.parse(ledger?.deadline_at ?? '')).toBeGreaterThan(started);
    expect(Date.parse(ledger?.deadline_at ?? '')).toBeLessThanOrEqual(started + 21_000);
    // Who asked, as server A vouched for it.
    const demoUser = (await local.troupe.storage.runs.get(answer.run_id))?.user_id;
    expect(task?.input.caller).toEqual({ issuer: 'server-a', subject: demoUser, name: 'demo' });
    // What the remote task used is the delegation run's own usage, and counts in its budget.
    const delegated = await local.troupe.storage.runs.get(answer.run_id);
    expect(task?.usage?.total_tokens).toBeGreaterThan(0);
    expect(delegated?.usage).toEqual(task?.usage);
    expect((await local.troupe.storage.budgets.get(answer.run_id))?.used).toMatchObject({
      tokens: task?.usage?.total_tokens,
      model_calls: task?.usage?.model_calls,
    });
    const tree = await json<{ tree: { totals: { own: { total_tokens: number } } } }>(
      await local.api(`/api/agent/runs/${answer.run_id}/tree`),
    );
    expect(tree.tree.totals.own.total_tokens).toBe(task?.usage?.total_tokens);
  });

  it('the remote enforces the budget: a task that cannot fit it fails, and the parent reads why', async () => {
    const answer = await delegate('remote-analyst', 'A task with almost no budget', 30_000, { tokens: 3 });
    expect(answer.status).toBe('failed');
    expect(answer.error_type).toBe('remote_task_failed');
    expect(answer.error).toMatch(/budget_exhausted/);
    const task = await remoteRun(await remoteTaskOf(answer.run_id));
    expect(task?.error?.type).toBe('budget_exhausted');
  });

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

  it('the remote continues the caller trace, and refuses a forged, expired or misdirected claim', async () => {
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const ok = await sendRaw({ traceparent });
    expect((await remoteRun(ok.result?.task?.id ?? ''))?.input.traceparent).toBe(traceparent);
    const now = Math.floor(Date.now() / 1000);
    const claim = {
      sub: 'usr_x',
      name: 'x',
      aud: new URL(remote.url).origin,
      iat: now,
      exp: now + 60,
      jti: 'j',
    };
    const forger = generateKeyPairSync('ed25519');
    for (const [token, reason] of [
      [signCallerClaim('server-a', forger.privateKey, claim), /does not verify/],
      [signCallerClaim('server-a', callerKeys.privateKey, { ...claim, exp: now - 600 }), /expired/],
      [
        signCallerClaim('server-a', callerKeys.privateKey, { ...claim, aud: 'https://elsewhere.example' }),
        /another server/,
      ],
    ] as const) {
      const refused = await sendRaw({ caller: token });
      expect(refused.error?.code).toBe(-32602);
      expect(refused.error?.message).toMatch(reason);
    }
    // An issuer the remote does not trust is ignored, not refused; a passed deadline is refused.
    const unknown = await sendRaw({ caller: signCallerClaim('server-z', forger.privateKey, claim) });
    expect((await remoteRun(unknown.result?.task?.id ?? ''))?.input.caller).toBeUndefined();
    expect((await sendRaw({ deadline: new Date(Date.now() - 1000).toISOString() })).error?.message).toMatch(
      /deadline has passed/,
    );
    expect((await sendRaw({ budget: { tokens: -1 } })).error?.code).toBe(-32602);
  });
});
