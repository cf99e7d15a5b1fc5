import { describe, it } from 'vitest';
import { AGENTS_API_ATTEMPTS } from '../../test/helpers/http/foreign-ids/agents-api-attempts.js';
import { expectAttemptRefused } from '../../test/helpers/http/foreign-ids/foreign-id-attempt.js';
import { useForeignIdsWorld } from '../../test/helpers/http/foreign-ids/use-foreign-ids-world.js';

const world = useForeignIdsWorld();

// OpenAI's Agents API shape; foreign-ids-coverage.test.ts checks that the attempts together reach every route taking an id.
describe("another member using the first member's ids", () => {
  it.each(AGENTS_API_ATTEMPTS)('$name ⇒ $code, nothing changes', (attempt) =>
    expectAttemptRefused(world(), attempt),
  );
});
