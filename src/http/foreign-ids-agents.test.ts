import { describe, it } from 'vitest';
import { AGENT_ATTEMPTS } from '../../test/helpers/http/foreign-ids/agent-attempts.js';
import { expectAttemptRefused } from '../../test/helpers/http/foreign-ids/foreign-id-attempt.js';
import { useForeignIdsWorld } from '../../test/helpers/http/foreign-ids/use-foreign-ids-world.js';

const world = useForeignIdsWorld();

// Agents, tokens and projects; foreign-ids-coverage.test.ts checks that the attempts together reach every route taking an id.
describe("another member using the first member's ids", () => {
  it.each(AGENT_ATTEMPTS)('$name ⇒ $code, nothing changes', (attempt) =>
    expectAttemptRefused(world(), attempt),
  );
});
