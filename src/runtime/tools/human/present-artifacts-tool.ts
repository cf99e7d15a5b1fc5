import { z } from 'zod';
import { contentTypeFor } from '../../../core/files/content-type-for.js';
import type { Storage } from '../../../core/ports/storage.js';
import { artifactView } from '../../../core/files/artifact-view.js';
import { defineTool, type TroupeTool } from '../../../core/tools/troupe-tool.js';
import { openInWorkdir } from '../workdir/open-in-workdir.js';
import { refuseSubagentRun } from './main-agent-only.js';

export const PRESENT_ARTIFACTS = 'present_artifacts';
export const MAX_ARTIFACTS_PER_CALL = 20;

const presentArtifactsInputSchema = z
  .object({
    artifacts: z
      .array(
        z
          .object({
            path: z
              .string()
              .min(1)
              .max(1000)
              .describe('Path of an existing file, relative to the project workdir.'),
            title: z.string().trim().min(1).max(200).optional().describe('A short title the user sees.'),
          })
          .strict(),
      )
      .min(1)
      .max(MAX_ARTIFACTS_PER_CALL),
  })
  .strict();

export type PresentArtifactsInput = z.infer<typeof presentArtifactsInputSchema>;

/**
 * `present_artifacts` (docs/runtime-tools.md): marks workdir files as results for the user. Every path is checked first
 * (an existing regular file inside the workdir, resolved like the file tools resolve it), then all are
 * recorded in one write with one `artifact` event each; one bad path presents nothing. The download reads
 * the file again at download time, so the artifact is what the file holds then. Main agents only.
 */
export function createPresentArtifactsTool(storage: Storage): TroupeTool<PresentArtifactsInput> {
  return defineTool<PresentArtifactsInput>({
    name: PRESENT_ARTIFACTS,
    effect: 'idempotent',
    description:
      'Show files from the project workdir to the user as results they can download (reports, exports, ' +
      'images). Present a file once it is complete. Paths are relative to the workdir; each must be an ' +
      'existing file.',
    inputSchema: presentArtifactsInputSchema,
    async execute(input, context) {
      refuseSubagentRun(PRESENT_ARTIFACTS, context);
      const checked = new Map<string, { title: string | null; size: number }>();
      for (const entry of input.artifacts) {
        context.abortSignal.throwIfAborted();
        // The path recorded is where the checked descriptor really was, relative to the workdir.
        const {
          handle,
          stats,
          shownPath: relative,
        } = await openInWorkdir(context.workdir, entry.path, 'read');
        await handle.close();
        if (!checked.has(relative)) checked.set(relative, { title: entry.title ?? null, size: stats.size });
      }
      const recorded = await storage.artifacts.record(
        [...checked].map(([path, { title, size }]) => ({
          run_id: context.run.id,
          conversation_id: context.run.conversation_id,
          user_id: context.run.user_id,
          tool_call_id: context.toolCallId,
          path,
          title,
          size,
          content_type: contentTypeFor(path),
        })),
      );
      for (const artifact of recorded) await context.emit('artifact', { artifact: artifactView(artifact) });
      const list = recorded.map((artifact) =>
        artifact.title ? `${artifact.path} (${artifact.title})` : artifact.path,
      );
      return `Presented ${recorded.length} artifact${recorded.length === 1 ? '' : 's'} to the user: ${list.join(', ')}`;
    },
  });
}
