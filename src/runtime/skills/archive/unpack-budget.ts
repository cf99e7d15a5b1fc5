import { tooLarge } from '../../../core/skills/build-skill-package.js';
import type { SkillLimits } from '../../../core/skills/skill-limits.js';

/**
 * Counts what an archive unpacks to, across all entries, and stops at the limits the moment they are
 * crossed: declared sizes are only hints, a zip bomb lies about them.
 */
export class UnpackBudget {
  private bytes = 0;
  private files = 0;

  constructor(private readonly limits: SkillLimits) {}

  /** Room left for the current entry's bytes. */
  get remainingBytes(): number {
    return this.limits.maxTotalBytes - this.bytes;
  }

  addBytes(count: number): void {
    this.bytes += count;
    if (this.bytes > this.limits.maxTotalBytes) {
      throw tooLarge(`The skill unpacks to more than ${this.limits.maxTotalBytes} bytes`, {
        maxTotalBytes: this.limits.maxTotalBytes,
      });
    }
  }

  addFile(): void {
    this.files += 1;
    if (this.files > this.limits.maxFiles) {
      throw tooLarge(`A skill may hold at most ${this.limits.maxFiles} files`, {
        maxFiles: this.limits.maxFiles,
      });
    }
  }
}
