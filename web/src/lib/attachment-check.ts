import type { ServerLimits } from '../api/types.ts';
import { formatBytes } from './save-blob.ts';

/**
 * Why these files cannot be attached under the server's limits (`GET /api/limits`), in words a person
 * reads: "plan.pdf is 14.2 MB; files up to 10 MB can be attached." Null when they can, or when the limits
 * are unknown (the server checks again in any case).
 */
export function attachmentProblem(
  files: readonly { name: string; size: number }[],
  alreadyAttached: number,
  limits: ServerLimits | null,
): string | null {
  if (limits === null) return null;
  const tooLarge = files.filter((file) => file.size > limits.attachment_max_bytes);
  const max = formatBytes(limits.attachment_max_bytes);
  if (tooLarge.length === 1) {
    const [file] = tooLarge;
    return `${file?.name ?? 'The file'} is ${formatBytes(file?.size ?? 0)}; files up to ${max} can be attached.`;
  }
  if (tooLarge.length > 1) {
    return `${tooLarge.map((file) => `${file.name} (${formatBytes(file.size)})`).join(', ')} are over the limit of ${max} per file.`;
  }
  const total = alreadyAttached + files.length;
  if (total > limits.attachment_max_files) {
    return `At most ${limits.attachment_max_files} files can go with one message; that would be ${total}.`;
  }
  return null;
}
