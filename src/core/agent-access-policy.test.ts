import { describe, expect, it } from 'vitest';
import {
  canGrantAgent,
  canManageAgent,
  canUseAgent,
  grantDecides,
  isValidSlug,
  slugify,
} from './agent-access-policy.js';
import type { Agent, AgentVisibility } from './records/agent.js';
import type { Actor } from './records/user.js';

const owner: Actor = { id: 'usr_owner', role: 'member' };
const other: Actor = { id: 'usr_other', role: 'member' };
const admin: Actor = { id: 'usr_admin', role: 'admin' };

function agent(visibility: AgentVisibility, deleted = false): Agent {
  return {
    id: 'agt_00000000000000000001',
    slug: 'a',
    name: 'A',
    description: '',
    backend: 'chat',
    is_subagent: false,
    owner_id: owner.id,
    visibility,
    config: {},
    status: 'draft',
    delegatable: true,
    delegation_brief: null,
    is_default: false,
    deleted_at: deleted ? '2026-01-01T00:00:00.000Z' : null,
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
  };
}

describe('canUseAgent', () => {
  it('lets admins, owners and grant holders use private and shared agents, and everyone public ones', () => {
    for (const visibility of ['private', 'shared'] as const) {
      expect(canUseAgent(admin, agent(visibility), false)).toBe(true);
      expect(canUseAgent(owner, agent(visibility), false)).toBe(true);
      expect(canUseAgent(other, agent(visibility), false)).toBe(false);
      expect(canUseAgent(other, agent(visibility), true)).toBe(true);
    }
    expect(canUseAgent(other, agent('public'), false)).toBe(true);
  });

  it('lets nobody use a deleted agent', () => {
    for (const actor of [admin, owner, other])
      expect(canUseAgent(actor, agent('public', true), true)).toBe(false);
  });

  it('turns on the grant exactly where grantDecides says, so callers may skip reading it elsewhere', () => {
    for (const actor of [admin, owner, other])
      for (const visibility of ['private', 'shared', 'public'] as const)
        for (const deleted of [false, true]) {
          const target = agent(visibility, deleted);
          const differs = canUseAgent(actor, target, true) !== canUseAgent(actor, target, false);
          expect(grantDecides(actor, target), `${actor.id} ${visibility} deleted=${deleted}`).toBe(differs);
        }
  });
});

describe('canManageAgent and canGrantAgent', () => {
  it('manage: admin or owner only; a grant or public visibility is not enough', () => {
    expect(canManageAgent(admin, agent('private'))).toBe(true);
    expect(canManageAgent(owner, agent('private'))).toBe(true);
    expect(canManageAgent(other, agent('public'))).toBe(false);
  });

  it('grant: admins always, owners only for shared agents', () => {
    expect(canGrantAgent(owner, agent('shared'))).toBe(true);
    expect(canGrantAgent(owner, agent('private'))).toBe(false);
    expect(canGrantAgent(admin, agent('private'))).toBe(true);
    expect(canGrantAgent(other, agent('shared'))).toBe(false);
  });
});

describe('slugs', () => {
  it('accepts identifier-style slugs only', () => {
    for (const slug of ['ab', 'research-helper', 'a_b-c9']) expect(isValidSlug(slug)).toBe(true);
    for (const slug of [
      'a',
      'Ab',
      '9ab',
      '-ab',
      'a b',
      'a'.repeat(64),
      'default',
      'runs',
      'agt_0123456789abcdef0123',
    ]) {
      expect(isValidSlug(slug)).toBe(false);
    }
  });

  it('derives slugs from names, or nothing', () => {
    expect(slugify('Research Helper!')).toBe('research-helper');
    expect(slugify('Café Crème')).toBe('cafe-creme');
    expect(slugify('42 Agents')).toBe('agents');
    expect(slugify('研究')).toBeUndefined();
  });
});
