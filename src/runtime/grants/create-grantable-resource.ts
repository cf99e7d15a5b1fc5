import { TroupeError } from '../../core/errors.js';
import type { GrantableKind, GrantRecords } from '../../core/ports/grant-repository.js';
import type { Storage } from '../../core/ports/storage.js';
import type { AccessSource, AgentVisibility } from '../../core/records/agent.js';
import type { Actor } from '../../core/records/user.js';
import { isAdmin } from '../../core/records/user.js';

/** What the grant rules need of a resource. */
export interface GrantableRecord {
  id: string;
  name: string;
  owner_id: string;
  visibility: AgentVisibility;
}

/** One kind of grantable resource: how to find it by reference, its access policy and its texts. */
export interface GrantableResourceSpec<R extends GrantableRecord, K extends GrantableKind> {
  kind: K;
  /** By id or name. */
  find(store: Storage, ref: string): Promise<R | undefined>;
  notFound(ref: string): TroupeError;
  canUse(actor: Actor, resource: R, hasGrant: boolean): boolean;
  canManage(actor: Actor, resource: R): boolean;
  canGrant(actor: Actor, resource: R): boolean;
  texts: {
    manageForbidden(resource: R): string;
    listGrantsForbidden(resource: R): string;
    grantForbidden(actor: Actor, resource: R): string;
    grantNotFound(userId: string, resource: R): string;
  };
}

/**
 * The access rules skills and knowledge sources share (docs/records-and-access.md#access), with one
 * vocabulary: a resource is named by a `ref` (id or name); anything the actor may not use is its kind's
 * not-found error, so ids never leak; `forbidden` only once the actor can see it.
 */
export function createGrantableResource<R extends GrantableRecord, K extends GrantableKind>(
  spec: GrantableResourceSpec<R, K>,
) {
  async function resolveUsable(store: Storage, actor: Actor, ref: string): Promise<R> {
    const resource = await spec.find(store, ref);
    if (resource === undefined) throw spec.notFound(ref);
    // Only look the grant up when it can change the answer.
    const needsGrant = !isAdmin(actor) && resource.owner_id !== actor.id && resource.visibility !== 'public';
    const hasGrant = needsGrant && (await store.grants.has(spec.kind, actor.id, resource.id));
    if (!spec.canUse(actor, resource, hasGrant)) throw spec.notFound(ref);
    return resource;
  }

  async function resolveManageable(store: Storage, actor: Actor, ref: string): Promise<R> {
    const resource = await resolveUsable(store, actor, ref);
    if (!spec.canManage(actor, resource))
      throw new TroupeError('forbidden', spec.texts.manageForbidden(resource));
    return resource;
  }

  async function resolveGrantable(store: Storage, actor: Actor, ref: string): Promise<R> {
    const resource = await resolveUsable(store, actor, ref);
    if (!spec.canGrant(actor, resource)) {
      throw new TroupeError('forbidden', spec.texts.grantForbidden(actor, resource));
    }
    return resource;
  }

  return {
    resolveUsable,
    resolveManageable,
    resolveGrantable,

    async listGrants(store: Storage, actor: Actor, ref: string): Promise<GrantRecords[K][]> {
      const resource = await resolveUsable(store, actor, ref);
      if (!spec.canManage(actor, resource)) {
        throw new TroupeError('forbidden', spec.texts.listGrantsForbidden(resource));
      }
      return store.grants.list(spec.kind, resource.id);
    },

    async grant(
      store: Storage,
      actor: Actor,
      ref: string,
      userId: string,
      source: AccessSource,
    ): Promise<{ grant: GrantRecords[K]; created: boolean }> {
      const resource = await resolveGrantable(store, actor, ref);
      if ((await store.users.get(userId)) === undefined) {
        throw new TroupeError('user_not_found', `User "${userId}" not found`);
      }
      const existed = await store.grants.has(spec.kind, userId, resource.id);
      return { grant: await store.grants.grant(spec.kind, userId, resource.id, source), created: !existed };
    },

    async revokeGrant(store: Storage, actor: Actor, ref: string, userId: string): Promise<void> {
      const resource = await resolveGrantable(store, actor, ref);
      const grant = (await store.grants.list(spec.kind, resource.id)).find(
        (entry) => entry.user_id === userId,
      );
      if (grant === undefined)
        throw new TroupeError('grant_not_found', spec.texts.grantNotFound(userId, resource));
      // The creator's grant mirrors ownership; revoking it would change nothing but the record.
      if ('source' in grant && grant.source === 'created') {
        throw new TroupeError('forbidden', "The creator's grant cannot be revoked");
      }
      await store.grants.revoke(spec.kind, userId, resource.id);
    },
  };
}
