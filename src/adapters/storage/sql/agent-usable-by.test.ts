import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canUseAgent } from '../../../core/agent-access-policy.js';
import type { Storage } from '../../../core/ports/storage.js';
import { AGENT_VISIBILITIES, type Agent } from '../../../core/records/agent.js';
import type { User } from '../../../core/records/user.js';
import { createSqliteStorage } from '../sqlite/create-sqlite-storage.js';

/**
 * The SQL access predicate against the core policy, over every combination of role, visibility, ownership,
 * grant, deletion and kind, on a real SQLite file: `listUsable` and `listDelegatable` must return exactly the
 * agents `canUseAgent` allows (delegation adding only its own conditions: published, delegatable, no subagent).
 */
let dir: string;
let storage: Storage;
let users: User[];
let agents: { agent: Agent; grantedTo: Set<string> }[];

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'troupe-access-'));
  storage = await createSqliteStorage({ filename: path.join(dir, 'troupe.db') });
  const admin = await storage.users.create({ name: 'admin', role: 'admin' });
  const owner = await storage.users.create({ name: 'owner', role: 'member' });
  const granted = await storage.users.create({ name: 'granted', role: 'member' });
  const stranger = await storage.users.create({ name: 'stranger', role: 'member' });
  users = [admin, owner, granted, stranger];
  agents = [];
  let index = 0;
  for (const visibility of AGENT_VISIBILITIES) {
    for (const grant of [false, true]) {
      for (const deleted of [false, true]) {
        for (const subagent of [false, true]) {
          index += 1;
          const agent = await storage.agents.create({
            slug: `case-${index}`,
            name: `Case ${index}`,
            description: '',
            backend: subagent ? 'subagent' : 'chat',
            is_subagent: subagent,
            owner_id: owner.id,
            visibility,
            config: {},
            status: 'published',
            delegatable: index % 3 !== 0,
            delegation_brief: null,
            is_default: false,
          });
          if (grant) await storage.access.grant(granted.id, agent.id, 'granted');
          if (deleted) await storage.agents.softDelete(agent.id, new Date().toISOString());
          const stored = await storage.agents.get(agent.id);
          if (!stored) throw new Error(`agent ${agent.slug} vanished`);
          agents.push({ agent: stored, grantedTo: new Set(grant ? [granted.id] : []) });
        }
      }
    }
  }
});

afterAll(async () => {
  await storage.close();
  rmSync(dir, { recursive: true, force: true });
});

const expected = (user: User, filter: (agent: Agent) => boolean) =>
  agents
    .filter(({ agent, grantedTo }) => filter(agent) && canUseAgent(user, agent, grantedTo.has(user.id)))
    .map(({ agent }) => agent.slug)
    .sort();

describe('agentUsableBy is canUseAgent in SQL', () => {
  it('lists exactly the usable agents for every user, with and without subagents', async () => {
    for (const user of users) {
      const all = (await storage.agents.listUsable(user, { include_subagents: true }))
        .map((agent) => agent.slug)
        .sort();
      expect(all, user.name).toEqual(expected(user, () => true));
      const chat = (await storage.agents.listUsable(user)).map((agent) => agent.slug).sort();
      expect(chat, user.name).toEqual(expected(user, (agent) => !agent.is_subagent));
    }
  });

  it('gives delegation the same audience, plus its own conditions', async () => {
    for (const user of users) {
      const delegatable = (await storage.agents.listDelegatable(user)).map(({ agent }) => agent.slug).sort();
      expect(delegatable, user.name).toEqual(
        expected(user, (agent) => !agent.is_subagent && agent.delegatable && agent.status === 'published'),
      );
    }
  });
});
