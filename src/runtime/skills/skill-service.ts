import type { Clock } from '../../core/clock.js';
import { isoNow, systemClock } from '../../core/clock.js';
import { TroupeError } from '../../core/errors.js';
import type { Storage } from '../../core/ports/storage.js';
import type { Skill, SkillAccess, SkillFileInfo, SkillVisibility } from '../../core/records/skill.js';
import type { Actor } from '../../core/records/user.js';
import { isAdmin } from '../../core/records/user.js';
import {
  buildSkillPackage,
  SKILL_MD,
  type RawSkillEntry,
  type SkillPackage,
} from '../../core/skills/build-skill-package.js';
import { canGrantSkill, canManageSkill, canUseSkill } from '../../core/skills/skill-access-policy.js';
import { DEFAULT_SKILL_LIMITS, type SkillLimits } from '../../core/skills/skill-limits.js';
import { isSkillId } from '../../core/skills/skill-name.js';
import { getReadableConversation } from '../conversations/readable-conversation.js';
import { createGrantableResource } from '../grants/create-grantable-resource.js';
import { readSkillArchive } from './archive/read-skill-archive.js';
import { readSkillFolder } from './read-skill-folder.js';

export interface SaveSkillOptions {
  /** For a new skill; a replaced one keeps its visibility unless this is given. Default `private`. */
  visibility?: SkillVisibility;
  /** Upload a new version of a skill of the same name that the actor manages. */
  replace?: boolean;
}

export interface SavedSkill {
  skill: Skill;
  files: SkillFileInfo[];
  /** True for a new skill (or a deleted one of the actor's brought back); false for a new version of a live one. */
  created: boolean;
}

export interface SkillDetail {
  skill: Skill;
  files: SkillFileInfo[];
  /** The whole `SKILL.md`, front matter included. */
  skill_md: string;
}

/** A folder in a workdir the actor owns: the conversation's project, or a project directly. */
export interface WorkdirFolder {
  conversation_id?: string;
  project_id?: string;
  path: string;
}

export interface SkillService {
  /** Skills the actor may use (owner, grant, public; admins all), by name. */
  list(actor: Actor): Promise<Skill[]>;
  /** By id or name; `skill_not_found` for anything the actor may not use, so names and ids never leak. */
  get(actor: Actor, ref: string): Promise<SkillDetail>;
  createFromArchive(actor: Actor, archive: Uint8Array, options?: SaveSkillOptions): Promise<SavedSkill>;
  createFromWorkdir(actor: Actor, folder: WorkdirFolder, options?: SaveSkillOptions): Promise<SavedSkill>;
  /** A folder under `root` (a run's workdir for `install_skill`, or a local folder for the CLI). */
  createFromFolder(
    actor: Actor,
    root: string,
    folderPath: string,
    options?: SaveSkillOptions,
  ): Promise<SavedSkill>;
  setVisibility(actor: Actor, ref: string, visibility: SkillVisibility): Promise<Skill>;
  delete(actor: Actor, ref: string): Promise<void>;
  listGrants(actor: Actor, ref: string): Promise<SkillAccess[]>;
  grant(actor: Actor, ref: string, userId: string): Promise<{ grant: SkillAccess; created: boolean }>;
  revokeGrant(actor: Actor, ref: string, userId: string): Promise<void>;
}

export interface SkillServiceDeps {
  storage: Storage;
  limits?: SkillLimits;
  clock?: Clock;
}

/** Skills as grantable resources: found by id or name, with the skill access policy and texts. */
const skillResources = createGrantableResource<Skill, 'skill'>({
  kind: 'skill',
  find: (store, ref) => (isSkillId(ref) ? store.skills.get(ref) : store.skills.getByName(ref)),
  notFound: (ref) => new TroupeError('skill_not_found', `Skill "${ref}" not found`),
  canUse: canUseSkill,
  canManage: canManageSkill,
  canGrant: canGrantSkill,
  texts: {
    // Forbidden is safe: the actor can already see this skill.
    manageForbidden: (skill) => `Only the owner or an admin can change skill "${skill.name}"`,
    listGrantsForbidden: (skill) => `Only the owner or an admin can change skill "${skill.name}"`,
    grantForbidden: (_actor, skill) =>
      `Only the owner of a shared skill or an admin can grant access to "${skill.name}"`,
    grantNotFound: (userId, skill) => `User "${userId}" holds no grant on skill "${skill.name}"`,
  },
});

export function createSkillService(deps: SkillServiceDeps): SkillService {
  const { storage } = deps;
  const limits = deps.limits ?? DEFAULT_SKILL_LIMITS;
  const clock = deps.clock ?? systemClock;
  const { resolveUsable, resolveManageable } = skillResources;

  /** One transaction: the name check and the write cannot be split by a concurrent upload. */
  async function save(
    actor: Actor,
    entries: RawSkillEntry[],
    options: SaveSkillOptions,
  ): Promise<SavedSkill> {
    const pkg: SkillPackage = buildSkillPackage(entries, limits);
    const { skill, created } = await storage.transaction(async (tx) => {
      const existing = await tx.skills.getByName(pkg.name);
      if (existing === undefined) {
        const fresh = await tx.skills.create({
          ...pkg,
          owner_id: actor.id,
          visibility: options.visibility ?? 'private',
        });
        return { skill: fresh, created: true };
      }
      const ownsName = existing.owner_id === actor.id;
      // A deleted skill's name stays with its owner; a live one is managed by its owner and admins.
      const mayReplace = existing.deleted_at === null ? canManageSkill(actor, existing) : ownsName;
      if (!mayReplace)
        throw new TroupeError(
          'skill_name_taken',
          `The skill name "${pkg.name}" is taken by another user; rename the skill in its SKILL.md`,
        );
      if (existing.deleted_at === null && options.replace !== true) {
        throw new TroupeError(
          'skill_name_taken',
          `A skill named "${pkg.name}" already exists; upload with replace=true to publish a new version`,
        );
      }
      return {
        skill: await tx.skills.replaceContent(existing.id, pkg, options.visibility),
        created: existing.deleted_at !== null,
      };
    });
    return {
      skill,
      files: pkg.files.map((file) => ({ path: file.path, size: file.content.byteLength })),
      created,
    };
  }

  async function workdirOf(actor: Actor, folder: WorkdirFolder): Promise<string> {
    if ((folder.conversation_id === undefined) === (folder.project_id === undefined)) {
      throw new TroupeError(
        'validation_failed',
        'from_workdir needs exactly one of conversation_id or project_id',
      );
    }
    const projectId =
      folder.conversation_id !== undefined
        ? (await getReadableConversation(storage, actor, folder.conversation_id)).project_id
        : (folder.project_id ?? '');
    const project = await storage.projects.get(projectId);
    if (project === undefined || (project.user_id !== actor.id && !isAdmin(actor))) {
      throw new TroupeError('project_not_found', `Project "${projectId}" not found`);
    }
    return project.workdir;
  }

  return {
    list: (actor) => storage.skills.listUsable(actor),

    async get(actor, ref) {
      const skill = await resolveUsable(storage, actor, ref);
      const [files, content] = await Promise.all([
        storage.skills.listFiles(skill.id),
        storage.skills.readFiles(skill.id),
      ]);
      const skillMd = content.find((file) => file.path === SKILL_MD);
      return { skill, files, skill_md: skillMd ? new TextDecoder().decode(skillMd.content) : '' };
    },

    createFromArchive: (actor, archive, options = {}) =>
      save(actor, readSkillArchive(archive, limits), options),

    async createFromWorkdir(actor, folder, options = {}) {
      return save(actor, await readSkillFolder(await workdirOf(actor, folder), folder.path, limits), options);
    },

    async createFromFolder(actor, root, folderPath, options = {}) {
      return save(actor, await readSkillFolder(root, folderPath, limits), options);
    },

    async setVisibility(actor, ref, visibility) {
      const skill = await resolveManageable(storage, actor, ref);
      return storage.skills.setVisibility(skill.id, visibility);
    },

    async delete(actor, ref) {
      const skill = await resolveManageable(storage, actor, ref);
      await storage.skills.softDelete(skill.id, isoNow(clock));
    },

    listGrants: (actor, ref) => skillResources.listGrants(storage, actor, ref),

    // Skill grants keep no source: every one is `granted`.
    grant: (actor, ref, userId) => skillResources.grant(storage, actor, ref, userId, 'granted'),

    revokeGrant: (actor, ref, userId) => skillResources.revokeGrant(storage, actor, ref, userId),
  };
}
