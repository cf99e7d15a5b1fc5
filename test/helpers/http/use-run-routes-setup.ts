import type { Conversation } from '../../../src/core/records/conversation.js';
import type { RunServiceApi, StartedRun } from '../../../src/runtime/runs/run-service-api.js';
import { closeAfterEach } from '../close-after-each.js';
import { createRuntimeHarness } from '../create-runtime-harness.js';
import { createTestContext, type TestContext, type TestUser } from './create-test-context.js';
import { json } from './expect-error.js';

/** Answers at once. */
export const QUICK = `
rules:
  - steps:
      - text: "All done here."
`;

/** Streams slowly for 20 s, so a run stays active. */
export const SLOW = `
rules:
  - steps:
      - delay_ms: 20000
        chunk_size: 4
        text: "${'slow text '.repeat(40)}"
`;

export interface RunRoutesSetup {
  ctx: TestContext;
  alice: TestUser;
  conversation: Conversation;
  /** The signals the HTTP layer handed to `streamEvents`, to observe client disconnects. */
  streamSignals: AbortSignal[];
}

/**
 * Registers the cleanup and returns `setup`: Alice's conversation with a main agent playing `scenario`,
 * behind a run service that records the signals its event streams get.
 */
export function useRunRoutesSetup(): (scenario: string, sseHeartbeatMs?: number) => Promise<RunRoutesSetup> {
  const closeLater = closeAfterEach();
  return async (scenario, sseHeartbeatMs) => {
    const harness = await createRuntimeHarness({ scenarios: { main: scenario } });
    closeLater(harness);
    const real = harness.runs;
    const streamSignals: AbortSignal[] = [];
    const runs: RunServiceApi = {
      ...real,
      streamEvents: async (actor, runId, afterSeq, signal) => {
        streamSignals.push(signal);
        return real.streamEvents(actor, runId, afterSeq, signal);
      },
    };
    const ctx = await createTestContext({
      harness,
      runs,
      sseHeartbeatMs,
    });
    closeLater(ctx);
    const alice = await ctx.createUser('alice');
    await ctx.agents.create(alice.user, {
      name: 'Main',
      slug: 'main',
      config: { model: 'scripted:main', tool_approval_mode: 'always_trust' },
    });
    const conversation = await ctx.conversations.create(alice.user, { agent_id: 'main' });
    return { ctx, alice, conversation, streamSignals };
  };
}

/** Alice posts `content` and gets the started run. */
export async function post(s: RunRoutesSetup, content: string, requestId?: string): Promise<StartedRun> {
  const body = requestId === undefined ? { content } : { content, request_id: requestId };
  const response = await s.ctx.request('POST', `/api/conversations/${s.conversation.id}/messages`, {
    token: s.alice.token,
    body,
  });
  return json<StartedRun>(response, 202);
}
