import type { Storage } from '../../core/ports/storage.js';
import type { Run } from '../../core/records/run.js';
import { mayStartChildren } from '../../core/runs/child-run-parent.js';
import { computeEvidence, EVIDENCE_EVENT_TYPES, type Evidence } from '../../core/verification/evidence.js';
import { endedEvidenceOf } from '../runs/end/ended-evidence.js';
import { remoteEvidence, remoteReportOf } from '../../core/verification/remote-evidence.js';

/**
 * A finished child's evidence from its stored records: its tool and artifact events and the runs it started,
 * read at once (unless its ending read the events back: `endedEvidenceOf`). A subagent run starts none, ever (`mayStartChildren`): its children are not read. Usage and
 * the ending come from the run row the caller has. A remote expert's run has the remote task's report instead
 * (docs/verified-delegation.md#remote-experts).
 */
export async function readEvidence(storage: Storage, run: Run): Promise<Evidence> {
  const [events, children] = await Promise.all([
    endedEvidenceOf(run) ?? storage.events.listOfTypes(run.id, EVIDENCE_EVENT_TYPES),
    mayStartChildren(run) ? storage.runs.listChildren(run.id) : [],
  ]);
  const remote = remoteReportOf(events);
  return remote ? remoteEvidence(run, remote) : computeEvidence(run, events, children);
}
