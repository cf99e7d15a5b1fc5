import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TroupeError } from '../../../src/core/errors.js';
import type { NewSkill, Storage } from '../../../src/core/ports/storage.js';
import type { SkillFile } from '../../../src/core/records/skill.js';
import type { OpenedStorage } from './storage.contract.js';

const bytes = (text: string) => new TextEncoder().encode(text);

function skillInput(ownerId: string, name: string, overrides: Partial<NewSkill> = {}): NewSkill {
  const files: SkillFile[] = [
    { path: 'SKILL.md', content: bytes(`---\nname: ${name}\ndescription: d\n---\nbody`) },
    { path: 'docs/notes.txt', content: new Uint8Array([0, 1, 2, 255]) },
  ];
  return {
    name,
    description: `${name} description`,
    owner_id: ownerId,
    visibility: 'private',
    digest: `digest-${name}`,
    total_bytes: files.reduce((sum, file) => sum + file.content.byteLength, 0),
    files,
    ...overrides,
  };
}

async function expectCode(promise: Promise<unknown>, code: string): Promise<void> {
  const error: unknown = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(TroupeError);
  expect((error as TroupeError).code).toBe(code);
}

/** The skill part of the storage contract (docs/skills-and-knowledge.md), run by `describeStorageContract` on every adapter. */
export function describeSkillStorageContract(adapterName: string, open: () => Promise<OpenedStorage>): void {
  describe(`Skill storage contract: ${adapterName}`, () => {
    let opened: OpenedStorage;
    let storage: Storage;

    beforeEach(async () => {
      opened = await open();
      storage = opened.storage;
    });
    afterEach(async () => {
      await opened.close();
    });

    async function people() {
      const admin = await storage.users.create({ name: 'admin', role: 'admin' });
      const alice = await storage.users.create({ name: 'alice', role: 'member' });
      const bob = await storage.users.create({ name: 'bob', role: 'member' });
      return { admin, alice, bob };
    }

    it('stores a skill with its files byte for byte, in one write', async () => {
      const { alice } = await people();
      const input = skillInput(alice.id, 'citations');
      const skill = await storage.skills.create(input);
      expect(skill).toMatchObject({
        name: 'citations',
        owner_id: alice.id,
        file_count: 2,
        total_bytes: skill.total_bytes,
        deleted_at: null,
      });
      expect(skill.id).toMatch(/^skl_[0-9a-f]{20}$/);
      expect(await storage.skills.get(skill.id)).toEqual(skill);
      expect(await storage.skills.getByName('citations')).toEqual(skill);
      expect(await storage.skills.listFiles(skill.id)).toEqual([
        { path: 'SKILL.md', size: input.files[0]?.content.byteLength },
        { path: 'docs/notes.txt', size: 4 },
      ]);
      const files = await storage.skills.readFiles(skill.id);
      expect(files.map((file) => file.path)).toEqual(['SKILL.md', 'docs/notes.txt']);
      expect([...(files[1]?.content ?? [])]).toEqual([0, 1, 2, 255]);
    });

    it('refuses a second skill of the same name, even after the first was deleted, and keeps nothing of it', async () => {
      const { alice, bob } = await people();
      const first = await storage.skills.create(skillInput(alice.id, 'shared-name'));
      await expectCode(storage.skills.create(skillInput(bob.id, 'shared-name')), 'skill_name_taken');
      await storage.skills.softDelete(first.id, '2030-01-01T00:00:00.000Z');
      await expectCode(storage.skills.create(skillInput(bob.id, 'shared-name')), 'skill_name_taken');
      expect((await storage.skills.getByName('shared-name'))?.owner_id).toBe(alice.id);
    });

    it('rolls a failed create back entirely (no orphan files)', async () => {
      const { alice } = await people();
      const twice: SkillFile[] = [
        { path: 'SKILL.md', content: bytes('a') },
        { path: 'SKILL.md', content: bytes('b') },
      ];
      await expect(storage.skills.create(skillInput(alice.id, 'broken', { files: twice }))).rejects.toThrow();
      expect(await storage.skills.getByName('broken')).toBeUndefined();
      const ok = await storage.skills.create(skillInput(alice.id, 'broken'));
      expect(await storage.skills.listFiles(ok.id)).toHaveLength(2);
    });

    it('soft-deletes: files and grants go, the row and its name stay; replaceContent revives', async () => {
      const { alice, bob } = await people();
      const skill = await storage.skills.create(skillInput(alice.id, 'gone'));
      await storage.grants.grant('skill', bob.id, skill.id, 'granted');
      await storage.skills.softDelete(skill.id, '2030-01-01T00:00:00.000Z');
      const deleted = await storage.skills.get(skill.id);
      expect(deleted).toMatchObject({ deleted_at: '2030-01-01T00:00:00.000Z', file_count: 0 });
      expect(await storage.skills.listFiles(skill.id)).toEqual([]);
      expect(await storage.grants.has('skill', bob.id, skill.id)).toBe(false);
      expect(await storage.skills.listUsable(alice)).toEqual([]);
      const revived = await storage.skills.replaceContent(
        skill.id,
        {
          description: 'new',
          digest: 'd2',
          total_bytes: 1,
          files: [{ path: 'SKILL.md', content: bytes('x') }],
        },
        'public',
      );
      expect(revived).toMatchObject({
        id: skill.id,
        deleted_at: null,
        description: 'new',
        visibility: 'public',
        file_count: 1,
      });
      expect(await storage.skills.listFiles(skill.id)).toEqual([{ path: 'SKILL.md', size: 1 }]);
      await expectCode(
        storage.skills.softDelete('skl_00000000000000000000', '2030-01-01T00:00:00.000Z'),
        'skill_not_found',
      );
    });

    it('lists usable skills in SQL: owner, public, grant holder, admin; filtered by name', async () => {
      const { admin, alice, bob } = await people();
      const mine = await storage.skills.create(skillInput(alice.id, 'a-private'));
      await storage.skills.create(skillInput(alice.id, 'b-public', { visibility: 'public' }));
      const shared = await storage.skills.create(skillInput(alice.id, 'c-shared', { visibility: 'shared' }));
      await storage.skills.create(skillInput(bob.id, 'd-bob'));
      const names = async (actor: { id: string; role: 'admin' | 'member' }, filter?: { names?: string[] }) =>
        (await storage.skills.listUsable(actor, filter)).map((skill) => skill.name);
      expect(await names(alice)).toEqual(['a-private', 'b-public', 'c-shared']);
      expect(await names(bob)).toEqual(['b-public', 'd-bob']);
      await storage.grants.grant('skill', bob.id, shared.id, 'granted');
      expect(await storage.grants.grant('skill', bob.id, shared.id, 'granted')).toMatchObject({
        user_id: bob.id,
        skill_id: shared.id,
      });
      expect(await names(bob)).toEqual(['b-public', 'c-shared', 'd-bob']);
      expect(await names(admin)).toEqual(['a-private', 'b-public', 'c-shared', 'd-bob']);
      expect(await names(bob, { names: ['a-private', 'c-shared', 'nope'] })).toEqual(['c-shared']);
      expect(await names(bob, { names: [] })).toEqual([]);
      expect((await storage.grants.list('skill', shared.id)).map((grant) => grant.user_id)).toEqual([bob.id]);
      expect(await storage.grants.revoke('skill', bob.id, shared.id)).toBe(true);
      expect(await storage.grants.revoke('skill', bob.id, shared.id)).toBe(false);
      expect(await names(bob)).toEqual(['b-public', 'd-bob']);
      expect((await storage.skills.setVisibility(mine.id, 'public')).visibility).toBe('public');
      expect(await names(bob)).toEqual(['a-private', 'b-public', 'd-bob']);
    });
  });
}
