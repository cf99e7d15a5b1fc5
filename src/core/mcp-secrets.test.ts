import { describe, expect, it } from 'vitest';
import { isTroupeError } from './errors.js';
import { keepRedactedSecrets, REDACTED_SECRET, redactAgentConfig } from './mcp-secrets.js';
import type { AgentConfig } from './records/agent.js';

const STORED: AgentConfig = {
  model: 'scripted:x',
  mcp_servers: [
    {
      name: 'web',
      transport: 'http',
      url: 'https://a.example/mcp',
      headers: { authorization: 'Bearer real' },
    },
    { name: 'cli', transport: 'stdio', command: 'run-mcp', env: { TOKEN: 'real-env' } },
    { name: 'bare', transport: 'http', url: 'https://b.example/mcp' },
  ],
};

describe('redactAgentConfig', () => {
  it('replaces every header and env value, keeps keys and everything else, and leaves the input alone', () => {
    const snapshot = JSON.stringify(STORED);
    const redacted = redactAgentConfig(STORED);
    expect(redacted.mcp_servers).toEqual([
      { ...STORED.mcp_servers?.[0], headers: { authorization: REDACTED_SECRET } },
      { ...STORED.mcp_servers?.[1], env: { TOKEN: REDACTED_SECRET } },
      STORED.mcp_servers?.[2],
    ]);
    expect(redacted.model).toBe('scripted:x');
    expect(JSON.stringify(STORED)).toBe(snapshot);
    expect(redactAgentConfig({ model: 'm' })).toEqual({ model: 'm' });
  });
});

describe('keepRedactedSecrets', () => {
  it('round-trips a redacted config to the stored one', () => {
    expect(keepRedactedSecrets(redactAgentConfig(STORED), STORED)).toEqual(STORED);
  });

  it('keeps real values as sent', () => {
    const incoming: AgentConfig = {
      mcp_servers: [
        { name: 'web', transport: 'http', url: 'https://a.example/mcp', headers: { authorization: 'new' } },
      ],
    };
    expect(keepRedactedSecrets(incoming, STORED)).toEqual(incoming);
  });

  it('refuses a placeholder without a stored value for the same server, key and target', () => {
    const moved: AgentConfig = {
      mcp_servers: [
        {
          name: 'web',
          transport: 'http',
          url: 'https://evil.example/mcp',
          headers: { authorization: REDACTED_SECRET },
        },
      ],
    };
    expect(() => keepRedactedSecrets(moved, STORED)).toThrow(
      expect.objectContaining({ code: 'validation_failed' }) as Error,
    );
    const renamed: AgentConfig = {
      mcp_servers: [
        { name: 'other', transport: 'stdio', command: 'run-mcp', env: { TOKEN: REDACTED_SECRET } },
      ],
    };
    let thrown: unknown;
    try {
      keepRedactedSecrets(renamed, STORED);
    } catch (error) {
      thrown = error;
    }
    expect(isTroupeError(thrown, 'validation_failed')).toBe(true);
    expect(() => keepRedactedSecrets(redactAgentConfig(STORED), undefined)).toThrow();
  });

  it('leaves an unmatched placeholder in place for a draft report', () => {
    const draft = redactAgentConfig(STORED);
    expect(keepRedactedSecrets(draft, undefined, { unmatched: 'leave' })).toEqual(draft);
  });
});
