import { TroupeError } from '../../core/errors.js';
import {
  canGrantSource,
  canManageSource,
  canUseSource,
  isKnowledgeSourceId,
} from '../../core/knowledge/knowledge-access-policy.js';
import type { Storage } from '../../core/ports/storage.js';
import type { KnowledgeSource } from '../../core/records/knowledge.js';
import type { Actor } from '../../core/records/user.js';
import { createGrantableResource } from '../grants/create-grantable-resource.js';

/** Knowledge sources as grantable resources: found by id or name, with their access policy and texts. */
export const knowledgeSourceResources = createGrantableResource<KnowledgeSource, 'knowledge_source'>({
  kind: 'knowledge_source',
  find: (store, ref) =>
    isKnowledgeSourceId(ref) ? store.knowledgeSources.get(ref) : store.knowledgeSources.getByName(ref),
  notFound: (ref) => new TroupeError('knowledge_source_not_found', `Knowledge source "${ref}" not found`),
  canUse: canUseSource,
  canManage: canManageSource,
  canGrant: canGrantSource,
  texts: {
    // Forbidden is safe here: the actor can already see this source, so nothing leaks.
    manageForbidden: (source) => `Only the owner or an admin can change knowledge source "${source.name}"`,
    listGrantsForbidden: (source) => `Only the owner or an admin can see who may use "${source.name}"`,
    grantForbidden: (actor, source) =>
      source.owner_id === actor.id
        ? `Only an admin can grant access to a ${source.visibility} knowledge source; owners grant on shared ones`
        : `Only the owner of a shared knowledge source or an admin can grant access to "${source.name}"`,
    grantNotFound: (userId, source) => `User "${userId}" has no grant on "${source.name}"`,
  },
});

/** By id or name; `knowledge_source_not_found` for anything the actor may not use, so ids never leak. */
export function resolveUsableSource(store: Storage, actor: Actor, ref: string): Promise<KnowledgeSource> {
  return knowledgeSourceResources.resolveUsable(store, actor, ref);
}

/** `resolveUsableSource`, plus `forbidden` when the actor may read but not change it. */
export function resolveManageableSource(store: Storage, actor: Actor, ref: string): Promise<KnowledgeSource> {
  return knowledgeSourceResources.resolveManageable(store, actor, ref);
}
