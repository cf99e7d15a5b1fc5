import { describe, expect, it } from 'vitest';
import { canManageAgent, canUseAgent } from './agent-access-policy.js';
import { draftAgent } from './draft-agent.js';

describe('draftAgent', () => {
  it("is the given owner's own private chat agent carrying the config", () => {
    const config = { model: 'scripted:demo', tools: ['read_file'] };
    const draft = draftAgent(config, 'usr_alice');
    expect(draft).toMatchObject({ owner_id: 'usr_alice', visibility: 'private', backend: 'chat', config });
    expect(canManageAgent({ id: 'usr_alice', role: 'member' }, draft)).toBe(true);
    expect(canUseAgent({ id: 'usr_bob', role: 'member' }, draft, false)).toBe(false);
  });
});
