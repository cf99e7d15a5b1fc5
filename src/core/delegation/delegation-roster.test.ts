import { describe, expect, it } from 'vitest';
import type { Agent } from '../records/agent.js';
import { findCycle } from './delegation-chain.js';
import {
  MAX_MENTIONS,
  extractMentions,
  formatRosterEntry,
  rosterFilter,
  rosterLine,
} from './delegation-roster.js';

describe('extractMentions', () => {
  it('finds @slug and @id mentions, de-duplicated, ignoring e-mail addresses', () => {
    const text =
      'Ask @analyst and (@legal-team), again @analyst. Mail bob@analyst.com; id @agt_0123456789abcdef0123';
    expect(extractMentions(text)).toEqual(['analyst', 'legal-team', 'agt_0123456789abcdef0123']);
  });

  it('never folds case: a mention written like a display name is no slug and names nobody', () => {
    expect(extractMentions('Ask @Analyst, @ANALYST, @anaLyst or @analyst-Team')).toEqual([]);
    expect(extractMentions('Ask @analyst.')).toEqual(['analyst']);
  });

  it('ignores trailing punctuation and single letters, and stops at the mention cap', () => {
    expect(extractMentions('@a @ok- @x_ done')).toEqual(['ok']);
    const many = Array.from({ length: 30 }, (_, index) => `@expert${index}`).join(' ');
    expect(extractMentions(many)).toHaveLength(MAX_MENTIONS);
  });
});

describe('rosterFilter', () => {
  it('none: only mentions, nothing to ask without them', () => {
    expect(rosterFilter('none', ['kept'], [], 'agt_self')).toBeUndefined();
    expect(rosterFilter('none', ['kept'], ['analyst'], 'agt_self')).toEqual({
      ids: [],
      slugs: ['analyst'],
      exclude_id: 'agt_self',
    });
  });

  it('all: every expert (mentions are already covered), self excluded', () => {
    expect(rosterFilter('all', [], ['analyst'], 'agt_self')).toEqual({ exclude_id: 'agt_self' });
  });

  it('whitelist: the list plus mentions, ids and slugs split', () => {
    expect(
      rosterFilter('whitelist', ['analyst', 'agt_0123456789abcdef0123'], ['legal', 'analyst'], 'agt_self'),
    ).toEqual({
      ids: ['agt_0123456789abcdef0123'],
      slugs: ['analyst', 'legal'],
      exclude_id: 'agt_self',
    });
  });
});

describe('roster entries', () => {
  it('render as `slug: brief`: the identifier the tool takes, never the display name', () => {
    const expert = { agent: { name: 'Analyst', slug: 'analyst' } as Agent, brief: 'Analyses things.' };
    expect(formatRosterEntry(expert)).toBe('analyst: Analyses things.');
    expect(rosterLine(expert)).toBe('- analyst: Analyses things.');
  });
});

describe('delegation chain', () => {
  it('finds the target above the delegating run, root first', () => {
    const ancestry = [
      { run_id: 'r-b', agent_id: 'B' },
      { run_id: 'r-a', agent_id: 'A' },
    ];
    expect(findCycle(ancestry, 'A')?.map((link) => link.agent_id)).toEqual(['A', 'B']);
    expect(findCycle(ancestry, 'C')).toBeUndefined();
  });
});
