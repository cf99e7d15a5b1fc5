import type { Actor } from '../records/user.js';
import type { Artifact } from '../records/artifact.js';
import type { Attachment } from '../records/attachment.js';
import type { Skill, SkillFile, SkillFileInfo, SkillVisibility } from '../records/skill.js';

/*
 * The file-shaped part of the storage port (`storage.ts` re-exports it): skills and their files, the
 * artifacts runs present and the files users attach.
 */

/** What a skill holds: checked by `buildSkillPackage` before it reaches storage. */
export interface SkillContent {
  description: string;
  digest: string;
  total_bytes: number;
  /** Sorted by path. */
  files: SkillFile[];
}

export interface NewSkill extends SkillContent {
  name: string;
  owner_id: string;
  visibility: SkillVisibility;
}

/**
 * Skills and their files (docs/skills-and-knowledge.md). `skills.name` is unique over live and deleted skills alike:
 * `create` throws `TroupeError('skill_name_taken')` on a duplicate. Every write of a skill and its files is
 * one transaction.
 */
export interface SkillRepository {
  create(skill: NewSkill): Promise<Skill>;
  /** Deleted ones included: callers decide what a deleted skill means to them. */
  get(id: string): Promise<Skill | undefined>;
  getByName(name: string): Promise<Skill | undefined>;
  /** Replaces description and files, and revives a deleted skill; visibility too when given. */
  replaceContent(id: string, content: SkillContent, visibility?: SkillVisibility): Promise<Skill>;
  setVisibility(id: string, visibility: SkillVisibility): Promise<Skill>;
  /** Marks the skill deleted and drops its files; the row (and so the name) stays. */
  softDelete(id: string, at: string): Promise<void>;
  /**
   * Live skills `actor` may use — admin, owner, grant holder, or public — filtered in SQL, ordered by name.
   * With `names`, only those (an empty list matches nothing).
   */
  listUsable(actor: Actor, filter?: { names?: readonly string[] }): Promise<Skill[]>;
  listFiles(skillId: string): Promise<SkillFileInfo[]>;
  /** Every file with its bytes, sorted by path. */
  readFiles(skillId: string): Promise<SkillFile[]>;
}

export type NewArtifact = Omit<Artifact, 'id' | 'created_at'>;

export interface ArtifactRepository {
  /**
   * Records the artifacts of one tool call in one write. Idempotent on (run_id, tool_call_id, path): a
   * resumed run that presents the same files again gets the rows recorded the first time. Returns the
   * call's rows in the order given.
   */
  record(artifacts: NewArtifact[]): Promise<Artifact[]>;
  get(id: string): Promise<Artifact | undefined>;
  /** Oldest first. */
  listForConversation(conversationId: string): Promise<Artifact[]>;
  /** Forgets a presented artifact (its file stays in the workdir); deleting an unknown id does nothing. */
  delete(id: string): Promise<void>;
}

export type NewAttachment = Omit<Attachment, 'id' | 'created_at'>;

export interface AttachmentRepository {
  create(attachment: NewAttachment): Promise<Attachment>;
  get(id: string): Promise<Attachment | undefined>;
  /** Oldest first. */
  listForConversation(conversationId: string): Promise<Attachment[]>;
}
