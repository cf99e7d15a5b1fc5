import { generateKeyPairSync } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { signCallerClaim } from '../../src/core/remote-experts/caller-claim.js';
import { callerKeys, json, useRemoteExpertPair } from '../helpers/use-remote-expert-pair.js';
import type { TestServer } from '../helpers/start-test-server.js';

/**
 * The contract between two real Troupe servers on loopback (docs/interoperability.md): what a delegation sends the
 * remote expert (budget, deadline, signed caller, trace) and what the remote keeps, enforces and sends back.
 */
const pair = useRemoteExpertPair();
const { delegate, remoteRun, remoteTaskOf, sendRaw } = pair;
let local: TestServer;
let remote: TestServer;
beforeAll(() => {
  local = pair.local();
  remote = pair.remote();
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
