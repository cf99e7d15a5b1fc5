import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isTroupeError } from '../../core/errors.js';
import type { Storage } from '../../core/ports/storage.js';
import type { User } from '../../core/records/user.js';
import type { TestStorage } from '../../../test/helpers/http/create-test-storage.js';
import { createTestStorage } from '../../../test/helpers/http/create-test-storage.js';
import type { ProjectService } from './project-service.js';
import { createProjectService, DEFAULT_PROJECT_NAME } from './project-service.js';

let testStorage: TestStorage;
let dir: string;
let storage: Storage;
let projects: ProjectService;
let alice: User;
let bob: User;

beforeEach(async () => {
  testStorage = await createTestStorage();
  ({ dir, storage } = testStorage);
  projects = createProjectService(storage, { workdirRoot: path.join(dir, 'workdirs') });
  alice = await storage.users.create({ name: 'alice', role: 'member' });
  bob = await storage.users.create({ name: 'bob', role: 'member' });
});
afterEach(async () => {
  await testStorage.close();
});

describe('project service', () => {
  it('creates a real directory under the workdir root for each project', async () => {
    const project = await projects.createProject(alice, '  Research  ');
    expect(project.name).toBe('Research');
    expect(path.dirname(project.workdir)).toBe(path.join(dir, 'workdirs'));
    expect(statSync(project.workdir).isDirectory()).toBe(true);
    expect(await projects.list(alice)).toEqual([project]);
    expect(await projects.list(bob)).toEqual([]);
  });

  it('makes each workdir 0700, owned by the sandbox uid it is given (a root server)', async () => {
    const project = await projects.createProject(alice, 'Private');
    expect(statSync(project.workdir).mode & 0o777).toBe(0o700);
    expect(statSync(path.join(dir, 'workdirs')).mode & 0o777).toBe(0o700);
    if (process.geteuid?.() !== 0) return;
    const owner = { uid: 100_000 + 4949, gid: 100_000 + 4949 };
    const owned = createProjectService(storage, {
      workdirRoot: path.join(dir, 'workdirs'),
      workdirOwner: owner,
    });
    expect(statSync((await owned.createProject(alice, 'Sandboxed')).workdir)).toMatchObject(owner);
  });

  it('refuses blank names without leaving a directory behind', async () => {
    await expect(projects.createProject(alice, '   ')).rejects.toSatisfy((error) =>
      isTroupeError(error, 'validation_failed'),
    );
    expect(existsSync(path.join(dir, 'workdirs'))).toBe(false);
  });

  it('gets or creates the Default project once, even under concurrent first use', async () => {
    const [first, second] = await Promise.all([
      projects.defaultProject(alice),
      projects.defaultProject(alice),
    ]);
    expect(first.id).toBe(second.id);
    expect(first.name).toBe(DEFAULT_PROJECT_NAME);
    expect((await projects.defaultProject(alice)).id).toBe(first.id);
    expect((await projects.defaultProject(bob)).id).not.toBe(first.id);
    expect(await projects.list(alice)).toHaveLength(1);
  });

  it("treats another user's project as not found", async () => {
    const project = await projects.createProject(alice, 'Mine');
    await expect(projects.get(bob, project.id)).rejects.toSatisfy((error) =>
      isTroupeError(error, 'project_not_found'),
    );
    await expect(projects.getOwned(bob, project.id)).rejects.toSatisfy((error) =>
      isTroupeError(error, 'project_not_found'),
    );
    expect((await projects.getOwned(alice, project.id)).id).toBe(project.id);
  });
});
