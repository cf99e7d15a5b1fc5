import { taskStateToJSON } from '@a2a-js/sdk';
import { readReportedEvidence, type RemoteReport } from '../../core/verification/remote-evidence.js';
import type { RemoteTaskView } from './remote-task-view.js';

/**
 * What the run keeps of its remote task when it ends (docs/verified-delegation.md#remote-experts): the state, the
 * artifacts by id and name with their text length, the messages counted, and the evidence a remote Troupe
 * reported when it is evidence this server reads.
 */
export function remoteReport(view: RemoteTaskView): RemoteReport {
  const reported = view.evidence === undefined ? null : readReportedEvidence(view.evidence);
  return {
    task: {
      task_id: view.taskId ?? '',
      context_id: view.contextId ?? null,
      state: taskStateToJSON(view.state),
      artifacts: [...view.artifacts].map(([id, text]) => ({
        artifact_id: id,
        name: view.artifactNames.get(id) ?? '',
        chars: text.length,
      })),
      messages: view.messages,
      reported_by: reported ? 'troupe' : 'a2a',
    },
    reported,
  };
}
