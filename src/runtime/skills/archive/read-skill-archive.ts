import { TroupeError } from '../../../core/errors.js';
import type { RawSkillEntry } from '../../../core/skills/build-skill-package.js';
import type { SkillLimits } from '../../../core/skills/skill-limits.js';
import { readTarGzEntries } from './read-tar-gz-entries.js';
import { readZipEntries } from './read-zip-entries.js';

/** The archive kind by its magic bytes, never by a file name or media type a client chose. */
export function archiveKind(bytes: Uint8Array): 'zip' | 'tar.gz' | undefined {
  if (bytes[0] === 0x50 && bytes[1] === 0x4b && (bytes[2] === 0x03 || bytes[2] === 0x05)) return 'zip';
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) return 'tar.gz';
  return undefined;
}

/** Unpacks a `.zip` or `.tar.gz` skill archive into raw entries, under the skill limits. */
export function readSkillArchive(bytes: Uint8Array, limits: SkillLimits): RawSkillEntry[] {
  if (bytes.byteLength > limits.maxArchiveBytes) {
    throw new TroupeError(
      'payload_too_large',
      `A skill archive may be at most ${limits.maxArchiveBytes} bytes`,
      {
        details: { max_bytes: limits.maxArchiveBytes },
      },
    );
  }
  switch (archiveKind(bytes)) {
    case 'zip':
      return readZipEntries(bytes, limits);
    case 'tar.gz':
      return readTarGzEntries(bytes, limits);
    case undefined:
      throw new TroupeError('skill_invalid', 'The upload is neither a .zip nor a .tar.gz archive');
  }
}
