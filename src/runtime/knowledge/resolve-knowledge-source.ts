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
import { isAdmin } from '../../core/records/user.js';

function notFound(ref: string): TroupeError {
  return new TroupeError('knowledge_source_not_found', `Knowledge source "${ref}" not found`);
}

/** By id or name; `knowledge_source_not_found` for anything the actor may not use, so ids never leak. */
export async function resolveUsableSource(
  store: Storage,
  actor: Actor,
  ref: string,
): Promise<KnowledgeSource> {
  const source = isKnowledgeSourceId(ref)
    ? await store.knowledgeSources.get(ref)
    : await store.knowledgeSources.getByName(ref);
  if (source === undefined) throw notFound(ref);
  // Only look the grant up when it can change the answer.
  const needsGrant = !isAdmin(actor) && source.owner_id !== actor.id && source.visibility !== 'public';
  const hasGrant = needsGrant && (await store.knowledgeSources.hasGrant(actor.id, source.id));
  if (!canUseSource(actor, source, hasGrant)) throw notFound(ref);
  return source;
}

/** `resolveUsableSource`, plus `forbidden` when the actor may read but not change it. */
export async function resolveManageableSource(
  store: Storage,
  actor: Actor,
  ref: string,
): Promise<KnowledgeSource> {
  const source = await resolveUsableSource(store, actor, ref);
  // Forbidden is safe here: the actor can already see this source, so nothing leaks.
  if (!canManageSource(actor, source)) {
    throw new TroupeError(
      'forbidden',
      `Only the owner or an admin can change knowledge source "${source.name}"`,
    );
  }
  return source;
}

/** `resolveUsableSource`, plus `forbidden` when the actor may not grant access to it. */
export async function resolveGrantableSource(
  store: Storage,
  actor: Actor,
  ref: string,
): Promise<KnowledgeSource> {
  const source = await resolveUsableSource(store, actor, ref);
  if (!canGrantSource(actor, source)) {
    throw new TroupeError(
      'forbidden',
      source.owner_id === actor.id
        ? `Only an admin can grant access to a ${source.visibility} knowledge source; owners grant on shared ones`
        : `Only the owner of a shared knowledge source or an admin can grant access to "${source.name}"`,
    );
  }
  return source;
}
