/**
 * Caps on a skill, checked on every way in (archive upload, workdir folder, CLI). They bound what one upload
 * can make the server decompress, hold in memory and store, whatever the archive headers claim.
 */
export interface SkillLimits {
  /** Largest archive body accepted (compressed bytes). */
  maxArchiveBytes: number;
  /** Largest sum of file sizes once unpacked. */
  maxTotalBytes: number;
  maxFiles: number;
  /** `SKILL.md` must fit one `read_file` call. */
  maxSkillMdBytes: number;
  /** UTF-8 bytes of a whole path, and of one name in it (what a Linux file system takes: NAME_MAX). */
  maxPathBytes: number;
  maxNameBytes: number;
  maxDepth: number;
}

export const DEFAULT_SKILL_LIMITS: SkillLimits = {
  maxArchiveBytes: 5 * 1024 * 1024,
  maxTotalBytes: 10 * 1024 * 1024,
  maxFiles: 200,
  maxSkillMdBytes: 256 * 1024,
  maxPathBytes: 1024,
  maxNameBytes: 255,
  maxDepth: 12,
};
