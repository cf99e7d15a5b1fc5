import { describe, expect, it } from 'vitest';
import type { Agent } from '../api/types.ts';
import {
  agentKind,
  configFromForm,
  createBody,
  emptyFormState,
  formStateFromAgent,
  parseToolList,
  patchBody,
} from './agent-form-state.ts';

describe('agent form state', () => {
  it('parses comma and space separated tool lists, without duplicates', () => {
    expect(parseToolList('read_file, ls  mcp__github__*,ls,')).toEqual(['read_file', 'ls', 'mcp__github__*']);
  });

  it('builds a subagent body: is_subagent matches the backend, no allow-list, specs or expert fields', () => {
    const state = {
      ...emptyFormState('subagent'),
      name: ' Critic ',
      slug: 'critic',
      tools: ['read_file'],
      subagents: ['x'],
      specsText: '[{"name":"a"}]',
    };
    const { config, specsError } = configFromForm(state);
    expect(specsError).toBeNull();
    expect(config).toEqual({ tools: ['read_file'] });
    expect(createBody(state, config)).toEqual({
      slug: 'critic',
      name: 'Critic',
      description: '',
      backend: 'subagent',
      is_subagent: true,
      visibility: 'private',
      config: { tools: ['read_file'] },
    });
  });

  it('keeps config keys the form does not edit, and leaves slug and backend out of an update', () => {
    const agent = {
      slug: 'main',
      name: 'Main',
      description: 'd',
      backend: 'chat',
      visibility: 'public',
      status: 'published',
      delegatable: false,
      delegation_brief: null,
      config: {
        model: 'scripted:demo',
        mcp_servers: [{ name: 'gh', transport: 'http', url: 'http://x' }],
        max_steps: 7,
        subagent_specs: [{ name: 'a' }],
      },
    } as unknown as Agent;
    const state = formStateFromAgent(agent);
    expect(agentKind(agent)).toBe('expert');
    const { config } = configFromForm({ ...state, model: '' }, agent.config);
    expect(config).toEqual({
      mcp_servers: agent.config.mcp_servers,
      max_steps: 7,
      subagent_specs: [{ name: 'a' }],
    });
    const patch = patchBody(state, config);
    expect(patch).not.toHaveProperty('slug');
    expect(patch).not.toHaveProperty('backend');
    expect(patch).toMatchObject({ status: 'published', delegatable: false, delegation_brief: null });
  });

  it('reports a specs box that is not a JSON array', () => {
    expect(configFromForm({ ...emptyFormState('agent'), specsText: '{' }).specsError).toMatch(/Invalid JSON/);
  });

  it('keeps knowledge sources on subagents and main agents alike, and removes an emptied list', () => {
    const subagent = { ...emptyFormState('subagent'), knowledgeSources: ['ops-handbook'] };
    expect(configFromForm(subagent).config).toEqual({ knowledge_sources: ['ops-handbook'] });
    const agent = {
      id: 'agt_1',
      backend: 'chat',
      status: 'draft',
      config: { knowledge_sources: ['a', 'b'] },
    } as unknown as Agent;
    expect(formStateFromAgent(agent).knowledgeSources).toEqual(['a', 'b']);
    expect(
      configFromForm({ ...formStateFromAgent(agent), knowledgeSources: [] }, agent.config).config,
    ).toEqual({});
  });
});

describe('remote expert forms', () => {
  it('send only the card and credential, keep other stored headers, and send a redacted value back as is', () => {
    const state = {
      ...emptyFormState('expert'),
      name: 'Remote',
      backend: 'a2a' as const,
      cardUrl: ' https://x.example/card.json ',
      authorization: 'Bearer t',
    };
    const { config } = configFromForm(state, {
      a2a: { card_url: 'https://x.example/card.json', headers: { 'x-team': '[redacted]' }, timeout_ms: 5000 },
    });
    expect(config).toEqual({
      a2a: {
        card_url: 'https://x.example/card.json',
        headers: { 'x-team': '[redacted]', authorization: 'Bearer t' },
        timeout_ms: 5000,
      },
    });
    const body = createBody(state, config);
    expect(body).toMatchObject({ backend: 'a2a', is_subagent: false, status: 'published' });
    expect(configFromForm({ ...state, authorization: '' }, {}).config.a2a?.headers).toBeUndefined();
  });
});
