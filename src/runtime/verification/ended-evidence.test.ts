import { describe, expect, it } from 'vitest';
import { computeEvidence, EVIDENCE_EVENT_TYPES } from '../../core/verification/evidence.js';
import { TASK_MAIN, useSubagentWorld } from '../../../test/helpers/runtime/use-subagent-world.js';
import { readEvidence } from './read-evidence.js';

/*
 * A subagent's evidence comes from the transaction that completed it (runs/end/ended-evidence.ts): its parent, in the
 * same process, reads no events of its own, and what it gets is what storage holds.
 */
const HELPER_READS = `
rules:
  - steps:
      - tool_calls:
          - name: read_file
            args: { path: "missing.md" }
          - name: ls
            args: { path: "." }
      - text: "Read what there was."
`;

describe("a subagent's evidence from its ending", () => {
  const setup = useSubagentWorld();

  it("gives the parent the child's evidence without reading its events, equal to what storage holds", async () => {
    const { h, user, conversation } = await setup({ main: TASK_MAIN, helper: HELPER_READS });
    const reads: string[] = [];
    const listOfTypes = h.storage.events.listOfTypes.bind(h.storage.events);
    h.storage.events.listOfTypes = (runId, types) => {
      reads.push(runId);
      return listOfTypes(runId, types);
    };
    const { run } = await h.runs.postMessage(user, conversation.id, { content: 'look around' });
    const ended = await h.runs.await(user, run.id, 10_000);
    expect(ended.run.status).toBe('completed');
    const [child] = await h.storage.runs.listChildren(run.id);
    if (!child) throw new Error('no child run');
    expect(reads).not.toContain(child.id);

    const result = (await h.storage.events.list(run.id, 0, 1000)).find(
      (event) => event.type === 'tool_result',
    );
    expect(JSON.stringify(result?.payload)).toContain(
      '[evidence] 2 model calls; tools: read_file×1 (1 failed), ls×1',
    );
    // A copy of the row carries nothing: its evidence is read, and is the same.
    const stored = await readEvidence(h.storage, { ...child });
    expect(reads).toContain(child.id);
    expect(stored).toEqual(computeEvidence(child, await listOfTypes(child.id, EVIDENCE_EVENT_TYPES), []));
    expect(stored.tool_calls).toEqual({ read_file: { calls: 1, failed: 1 }, ls: { calls: 1, failed: 0 } });
  });
});
