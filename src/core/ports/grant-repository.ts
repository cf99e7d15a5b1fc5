import type { AccessSource } from '../records/agent.js';
import type { KnowledgeAccess } from '../records/knowledge.js';
import type { SkillAccess } from '../records/skill.js';

/** The grant record of each kind of grantable resource, as the API shows it. */
export interface GrantRecords {
  skill: SkillAccess;
  knowledge_source: KnowledgeAccess;
}

/** A user-owned resource others may be granted read access to (docs/records-and-access.md#access). */
export type GrantableKind = keyof GrantRecords;

/**
 * The access grants of skills and knowledge sources: one repository, one vocabulary, keyed by the
 * resource's kind and id. Agents keep `AccessRepository` (their grants have purchase sources and feed the
 * delegation roster queries).
 */
export interface GrantRepository {
  /**
   * Idempotent: granting again keeps the first grant (its time and source). Skill grants record no source:
   * `source` is kept for knowledge sources only.
   */
  grant<K extends GrantableKind>(
    kind: K,
    userId: string,
    resourceId: string,
    source: AccessSource,
  ): Promise<GrantRecords[K]>;
  /** False when the user held no grant. */
  revoke(kind: GrantableKind, userId: string, resourceId: string): Promise<boolean>;
  has(kind: GrantableKind, userId: string, resourceId: string): Promise<boolean>;
  /** Oldest first, then by user id. */
  list<K extends GrantableKind>(kind: K, resourceId: string): Promise<GrantRecords[K][]>;
}
