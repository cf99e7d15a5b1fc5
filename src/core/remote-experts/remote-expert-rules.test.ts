import { describe, expect, it } from 'vitest';
import { remoteExpertConfigProblem } from './remote-expert-rules.js';

const admin = { id: 'usr_a', role: 'admin' as const };
const member = { id: 'usr_m', role: 'member' as const };
const a2a = { card_url: 'https://agents.example.com/.well-known/agent-card.json' };

describe('remote expert configs', () => {
  it('are written by admins only, need a card, and exist on backend a2a only', () => {
    expect(remoteExpertConfigProblem(admin, 'a2a', { a2a })).toBeUndefined();
    expect(remoteExpertConfigProblem(member, 'a2a', { a2a })?.code).toBe('forbidden');
    expect(remoteExpertConfigProblem(admin, 'a2a', {})?.code).toBe('validation_failed');
    expect(remoteExpertConfigProblem(admin, 'chat', { a2a })?.code).toBe('validation_failed');
    expect(remoteExpertConfigProblem(member, 'chat', {})).toBeUndefined();
  });
});
