import { describe, expect, it } from 'vitest';
import type { Conversation } from '../core/records/conversation.js';
import { CONVERSATION_ATTEMPTS } from '../../test/helpers/http/foreign-ids/conversation-attempts.js';
import { expectAttemptRefused } from '../../test/helpers/http/foreign-ids/foreign-id-attempt.js';
import { RUN_ATTEMPTS } from '../../test/helpers/http/foreign-ids/run-attempts.js';
import { useForeignIdsWorld } from '../../test/helpers/http/foreign-ids/use-foreign-ids-world.js';
import { json } from '../../test/helpers/http/expect-error.js';

const world = useForeignIdsWorld();

// Conversations and their runs; foreign-ids-coverage.test.ts checks that the attempts together reach
// every route taking an id.
describe("another member using the first member's ids", () => {
  it.each(CONVERSATION_ATTEMPTS)('$name ⇒ $code, nothing changes', (attempt) =>
    expectAttemptRefused(world(), attempt),
  );
  it.each(RUN_ATTEMPTS)('$name ⇒ $code, nothing changes', (attempt) =>
    expectAttemptRefused(world(), attempt),
  );

  it("left the owner's records intact and usable", async () => {
    const { ctx, alice, mine } = world();
    const run = await json<{ run: { status: string } }>(
      await ctx.request('GET', `/api/agent/runs/${mine.runId}`, { token: alice.token }),
      200,
    );
    expect(run.run.status).toBe('pending');
    const conversation = await json<{ conversation: Conversation }>(
      await ctx.request('GET', `/api/conversations/${mine.conversation.id}`, { token: alice.token }),
      200,
    );
    expect(conversation.conversation).toEqual(mine.conversation);
  });
});
