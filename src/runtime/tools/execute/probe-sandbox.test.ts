import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../config.js';
import type { Storage } from '../../../core/ports/storage.js';
import { createExecuteSupport, executeReportEntries } from './execute-support.js';
import { probeSandbox } from './probe-sandbox.js';
import { SANDBOX_SKIP_REASON, SANDBOX_TOOLS } from '../../../../test/helpers/execute/sandbox-fixture.js';

describe('probing the sandbox', () => {
  it('reports a missing bubblewrap binary, and createExecuteSupport then offers no execute and says why', async () => {
    const settings = loadConfig({ TROUPE_BWRAP_PATH: '/nonexistent/bwrap' }).execute;
    const probe = await probeSandbox({ bwrapPath: settings.bwrapPath, sandboxUid: settings.sandboxUid });
    expect(probe).toEqual({
      available: false,
      reason:
        'bubblewrap not found at /nonexistent/bwrap (TROUPE_BWRAP_PATH; install the Debian package bubblewrap)',
    });
    // Only an agent asking for network makes the report read its owner; none does here.
    const storage = {} as Storage;
    const warnings: string[] = [];
    const support = await createExecuteSupport({
      settings,
      storage,
      warn: (message) => warnings.push(message),
    });
    expect(support.tools).toEqual([]);
    expect(warnings).toEqual([`execute is unavailable: ${probe.available ? '' : probe.reason}`]);
    const entries = await support.reportEntries({
      owner_id: 'usr_x',
      config: { tools: ['read_file', 'exec*'] },
    });
    expect(entries).toEqual([
      {
        code: 'tool_unavailable',
        spec_index: null,
        value: 'execute',
        message:
          'execute is unavailable: bubblewrap not found at /nonexistent/bwrap (TROUPE_BWRAP_PATH; install the Debian package bubblewrap)',
      },
    ]);
    // An agent that does not select execute hears nothing about it.
    expect(await support.reportEntries({ owner_id: 'usr_x', config: { tools: ['read_file'] } })).toEqual([]);
  });

  it.skipIf(!SANDBOX_TOOLS)(
    `finds a working sandbox where bubblewrap is installed${SANDBOX_SKIP_REASON}`,
    async () => {
      const settings = loadConfig({}).execute;
      const probe = await probeSandbox({ bwrapPath: settings.bwrapPath, sandboxUid: settings.sandboxUid });
      expect(probe.available).toBe(true);
      // Cached: every server of the process shares one probe.
      expect(probeSandbox({ bwrapPath: settings.bwrapPath, sandboxUid: settings.sandboxUid })).toBe(
        probeSandbox({ bwrapPath: settings.bwrapPath, sandboxUid: settings.sandboxUid }),
      );
    },
  );
});

describe('executeReportEntries', () => {
  const base = { unavailableReason: undefined, networkPolicy: 'admin' as const, ownerIsAdmin: false };

  it('warns that execute.network is ignored unless the policy lets this owner have it', () => {
    const config = { tools: ['execute'], execute: { network: true } };
    expect(executeReportEntries({ ...base, config }).map((entry) => entry.code)).toEqual([
      'execute_network_denied',
    ]);
    expect(executeReportEntries({ ...base, config, ownerIsAdmin: true })).toEqual([]);
    expect(executeReportEntries({ ...base, config, networkPolicy: 'any' })).toEqual([]);
    expect(
      executeReportEntries({ ...base, config, networkPolicy: 'off', ownerIsAdmin: true })[0]?.message,
    ).toContain('TROUPE_EXECUTE_NETWORK=off');
  });

  it('warns about a missing sandbox only to agents whose tool patterns select execute', () => {
    const unavailable = { ...base, unavailableReason: 'bubblewrap not found' };
    expect(executeReportEntries({ ...unavailable, config: { tools: ['*'] } })[0]?.message).toBe(
      'execute is unavailable: bubblewrap not found',
    );
    // No tool list means every tool this server offers: nothing was asked for by name.
    expect(executeReportEntries({ ...unavailable, config: {} })).toEqual([]);
  });
});
