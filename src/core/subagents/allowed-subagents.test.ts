import { describe, expect, it } from 'vitest';
import type { Agent } from '../records/agent.js';
import { resolveAllowedSubagents } from './allowed-subagents.js';
import { isDisabledForSubagents } from './subagent-tool-policy.js';

function agent(slug: string, overrides: Partial<Agent> = {}): Agent {
  return {
    id: `agt_${slug}`,
    slug,
    name: slug,
    description: '',
    backend: 'subagent',
    is_subagent: true,
    owner_id: 'usr_1',
    visibility: 'private',
    config: {},
    status: 'draft',
    delegatable: true,
    delegation_brief: null,
    is_default: false,
    deleted_at: null,
    created_at: '',
    updated_at: '',
    ...overrides,
  };
}

describe('resolveAllowedSubagents', () => {
  const visible = [
    agent('writer'),
    agent('researcher'),
    agent('main', { is_subagent: false, backend: 'chat' }),
  ];

  it('allows every visible subagent when the list is unset or empty, sorted by name', () => {
    expect(resolveAllowedSubagents(visible, undefined).map((a) => a.slug)).toEqual(['researcher', 'writer']);
    expect(resolveAllowedSubagents(visible, []).map((a) => a.slug)).toEqual(['researcher', 'writer']);
    expect(resolveAllowedSubagents(visible, ['  ', '']).map((a) => a.slug)).toEqual(['researcher', 'writer']);
  });

  it('sorts by code units, the same in every locale: capitals before small letters, then the id', () => {
    const mixed = [
      agent('b', { name: 'beta' }),
      agent('a2', { name: 'Alpha' }),
      agent('a1', { name: 'Alpha' }),
    ];
    expect(resolveAllowedSubagents(mixed, undefined).map((entry) => entry.slug)).toEqual(['a1', 'a2', 'b']);
    const cased = [agent('lower', { name: 'apple' }), agent('upper', { name: 'Zebra' })];
    expect(resolveAllowedSubagents(cased, undefined).map((entry) => entry.slug)).toEqual(['upper', 'lower']);
  });

  it('keeps the explicit order, drops duplicates and invisible entries', () => {
    expect(
      resolveAllowedSubagents(visible, ['writer', 'ghost', 'writer', 'researcher']).map((a) => a.slug),
    ).toEqual(['writer', 'researcher']);
  });

  it('fails closed when every explicit entry is invisible', () => {
    expect(resolveAllowedSubagents(visible, ['ghost', 'main'])).toEqual([]);
  });

  it('never returns deleted subagents or main agents', () => {
    const withDeleted = [...visible, agent('gone', { deleted_at: '2026-01-01T00:00:00.000Z' })];
    expect(resolveAllowedSubagents(withDeleted, ['gone', 'main'])).toEqual([]);
  });
});

describe('isDisabledForSubagents', () => {
  it('disables sensitive tools unless the approval mode is always_trust', () => {
    const writeFile = { name: 'write_file', sensitive: true };
    expect(isDisabledForSubagents(writeFile, 'default')).toBe(true);
    expect(isDisabledForSubagents(writeFile, 'always_trust')).toBe(false);
    expect(isDisabledForSubagents({ name: 'task' }, 'always_trust')).toBe(true);
    expect(isDisabledForSubagents({ name: 'delegate' }, 'always_trust')).toBe(true);
    expect(isDisabledForSubagents({ name: 'read_file' }, 'default')).toBe(false);
  });
});
