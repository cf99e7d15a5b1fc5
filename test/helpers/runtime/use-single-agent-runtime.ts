import { afterEach } from 'vitest';
import type { RuntimeHarnessOptions } from '../create-runtime-harness.js';
import { createRuntimeHarness, type RuntimeHarness } from '../create-runtime-harness.js';

/** Writes a file, reads it back and answers with what it read: three model steps, two tool calls. */
export const ECHO_SCENARIO = `
rules:
  - steps:
      - text: "Writing."
        tool_calls:
          - name: write_file
            args: { path: out.txt, content: "{{input}}" }
      - tool_calls:
          - name: read_file
            args: { path: out.txt }
      - text: "Read back: {{last_tool_result}}"
`;

/** Streams 400 characters over 20 s: a run that is still running when the test acts on it. */
export const SLOW_SCENARIO = `
rules:
  - steps:
      - delay_ms: 20000
        chunk_size: 4
        text: "${'slow text '.repeat(40)}"
`;

/**
 * One always-trusting agent `main` on a scripted model and one conversation of alice with it, on a fresh
 * runtime harness per call; the harness is closed after each test of the file that calls this.
 */
export function useSingleAgentRuntime() {
  let harness: RuntimeHarness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });
  return async function setup(scenario: string, extra: RuntimeHarnessOptions = {}) {
    harness = await createRuntimeHarness({ scenarios: { main: scenario }, ...extra });
    const user = await harness.createUser('alice');
    const agent = await harness.createAgent(user, 'main', {
      model: 'scripted:main',
      tool_approval_mode: 'always_trust',
    });
    const conversation = await harness.createConversation(user, agent);
    return { h: harness, user, agent, conversation };
  };
}
