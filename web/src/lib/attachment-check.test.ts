import { describe, expect, it } from 'vitest';
import { attachmentProblem } from './attachment-check.ts';
import { formatBytes } from './save-blob.ts';

const LIMITS = { attachment_max_bytes: 10 * 1024 * 1024, attachment_max_files: 3 };

describe('attachmentProblem', () => {
  it('names a file over the size limit with both sizes in words', () => {
    expect(attachmentProblem([{ name: 'plan.pdf', size: 14.2 * 1024 * 1024 }], 0, LIMITS)).toBe(
      'plan.pdf is 14.2 MB; files up to 10 MB can be attached.',
    );
    expect(
      attachmentProblem(
        [
          { name: 'a.bin', size: 11 * 1024 * 1024 },
          { name: 'b.bin', size: 2 * 1024 ** 3 },
          { name: 'ok.txt', size: 10 },
        ],
        0,
        LIMITS,
      ),
    ).toBe('a.bin (11 MB), b.bin (2 GB) are over the limit of 10 MB per file.');
  });

  it('counts the files already attached against the per-message limit', () => {
    expect(
      attachmentProblem(
        [
          { name: 'c', size: 1 },
          { name: 'd', size: 1 },
        ],
        2,
        LIMITS,
      ),
    ).toBe('At most 3 files can go with one message; that would be 4.');
    expect(attachmentProblem([{ name: 'c', size: LIMITS.attachment_max_bytes }], 2, LIMITS)).toBeNull();
  });

  it('says nothing while the limits are unknown', () => {
    expect(attachmentProblem([{ name: 'huge', size: 1e12 }], 99, null)).toBeNull();
  });

  it('formats sizes the way the server writes them', () => {
    expect([512, 12 * 1024, 3.4 * 1024 * 1024, 10 * 1024 * 1024].map(formatBytes)).toEqual([
      '512 B',
      '12 KB',
      '3.4 MB',
      '10 MB',
    ]);
  });
});
