import path from 'node:path';
import { TroupeError } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import type { Storage } from '../../core/ports/storage.js';
import type { Project } from '../../core/records/project.js';
import type { Actor } from '../../core/records/user.js';
import { isAdmin } from '../../core/records/user.js';
import { ensureWorkdirsRoot } from '../data-dir/prepare-data-dir.js';
import { openWorkdirDirectory } from '../tools/workdir/open-workdir-directory.js';
import type { WorkdirOwner } from '../tools/workdir/workdir-owner.js';

export const DEFAULT_PROJECT_NAME = 'Default';
const MAX_NAME_LENGTH = 200;

export interface ProjectService {
  list(actor: Actor): Promise<Project[]>;
  /** Owner or admin; anything else is `project_not_found`. */
  get(actor: Actor, projectId: string): Promise<Project>;
  /** Only the owner may bind conversations to a project, admins included. */
  getOwned(actor: Actor, projectId: string): Promise<Project>;
  createProject(actor: Actor, name: string): Promise<Project>;
  /** The actor's project named "Default", created on first use. */
  defaultProject(actor: Actor): Promise<Project>;
}

export interface ProjectServiceOptions {
  /** Every project's directory is created under this root (created 0700 when missing). */
  workdirRoot: string;
  /** Who owns each workdir: the sandbox's host uid when Troupe runs as root (`sandboxHostOwner`). */
  workdirOwner?: WorkdirOwner;
}

export function createProjectService(storage: Storage, options: ProjectServiceOptions): ProjectService {
  const workdirRoot = path.resolve(options.workdirRoot);
  // Serialises "get or create Default" per user inside this process, so two first requests arriving
  // together do not create two Default projects.
  const pendingDefaults = new Map<string, Promise<Project>>();

  function notFound(projectId: string): TroupeError {
    return new TroupeError('project_not_found', `Project "${projectId}" not found`);
  }

  async function create(actor: Actor, rawName: string): Promise<Project> {
    const name = rawName.trim();
    if (name === '' || name.length > MAX_NAME_LENGTH) {
      throw new TroupeError('validation_failed', `A project name must be 1 to ${MAX_NAME_LENGTH} characters`);
    }
    // The storage port assigns record ids on insert but needs the workdir up front, so the directory gets
    // its own id of the same kind; the path is stored on the record and never derived again.
    const id = newId('prj');
    await ensureWorkdirsRoot(workdirRoot);
    const workdirs = await openWorkdirDirectory(workdirRoot, '.');
    try {
      // Nobody but the server and the sandbox that works in it may enter it (README "Sandboxed `execute`").
      const created = await workdirs.makeDirectory(id, {
        mode: 0o700,
        owner: options.workdirOwner ?? 'server',
      });
      await created.close();
      try {
        return await storage.projects.create({
          user_id: actor.id,
          name,
          workdir: path.join(workdirRoot, id),
        });
      } catch (error) {
        await workdirs.remove(id);
        throw error;
      }
    } finally {
      await workdirs.close();
    }
  }

  return {
    async list(actor) {
      return storage.projects.listForUser(actor.id);
    },

    async get(actor, projectId) {
      const project = await storage.projects.get(projectId);
      if (project === undefined || (project.user_id !== actor.id && !isAdmin(actor))) {
        throw notFound(projectId);
      }
      return project;
    },

    async getOwned(actor, projectId) {
      const project = await storage.projects.get(projectId);
      if (project?.user_id !== actor.id) throw notFound(projectId);
      return project;
    },

    createProject: create,

    async defaultProject(actor) {
      const pending = pendingDefaults.get(actor.id);
      if (pending !== undefined) return pending;
      const work = (async () =>
        (await storage.projects.oldestNamed(actor.id, DEFAULT_PROJECT_NAME)) ??
        (await create(actor, DEFAULT_PROJECT_NAME)))();
      pendingDefaults.set(actor.id, work);
      try {
        return await work;
      } finally {
        pendingDefaults.delete(actor.id);
      }
    },
  };
}
