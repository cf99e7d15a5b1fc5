import { describe, expect, it } from 'vitest';
import type { Agent } from '../api/types.ts';
import { configFromForm, emptyFormState, formStateFromAgent } from './agent-form-state.ts';
import { matchRoute, paths } from './routes.ts';

describe('skills in the agent form', () => {
  it('reads config.skills and writes them back for main agents and subagents alike', () => {
    const agent = {
      backend: 'subagent',
      status: 'draft',
      config: { skills: ['citation-style'], max_steps: 3 },
    } as unknown as Agent;
    const state = formStateFromAgent(agent);
    expect(state.skills).toEqual(['citation-style']);
    expect(configFromForm({ ...state, skills: ['citation-style', 'pdf'] }, agent.config).config).toEqual({
      skills: ['citation-style', 'pdf'],
      max_steps: 3,
    });
  });

  it('drops the key when no skill is selected', () => {
    const { config } = configFromForm({ ...emptyFormState('agent'), skills: [] }, { skills: ['old'] });
    expect(config).not.toHaveProperty('skills');
  });
});

describe('skills routes', () => {
  it('maps /skills and /skills/NAME', () => {
    expect(matchRoute('/skills', '')).toEqual({ page: 'skills', skill: null });
    expect(matchRoute(paths.skills('citation-style'), '')).toEqual({
      page: 'skills',
      skill: 'citation-style',
    });
  });
});
