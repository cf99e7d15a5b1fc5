import { describe, expect, it } from 'vitest';
import { BWRAP_FD, bwrapArgs } from './bwrap-args.js';
import { SANDBOX_USER_ID, SANDBOX_WORKDIR } from './sandbox.js';
import { TEST_LIMITS } from '../../../../test/helpers/execute/sandbox-fixture.js';

const args = bwrapArgs({
  tools: { bwrap: '/usr/bin/bwrap', prlimit: '/usr/bin/prlimit' },
  layout: { links: [{ path: '/bin', target: 'usr/bin' }], dirs: ['/lib'], etc: ['/etc/hosts'] },
  command: 'id',
  network: false,
  limits: TEST_LIMITS,
  seccomp: true,
});
/** bubblewrap's own options: everything before the `--` that starts the command. */
const options = args.slice(0, args.indexOf('--'));
const valueOf = (option: string) => options[options.indexOf(option) + 1];

describe('bwrapArgs', () => {
  it('maps only the sandbox user: never uid or gid 0, no mapping handed in from outside', () => {
    expect(options[0]).toBe('--unshare-user');
    expect([valueOf('--uid'), valueOf('--gid')]).toEqual([String(SANDBOX_USER_ID), String(SANDBOX_USER_ID)]);
    expect(SANDBOX_USER_ID).toBeGreaterThan(0);
    expect(options.filter((option) => option === '--uid' || option === '--gid')).toHaveLength(2);
    for (const option of ['--userns', '--userns2', '--userns-block-fd', '--info-fd']) {
      expect(options).not.toContain(option);
    }
  });

  it('keeps no capability: all dropped, none added', () => {
    expect(valueOf('--cap-drop')).toBe('ALL');
    expect(options).not.toContain('--cap-add');
  });

  it('mounts the workdir from a descriptor, so no host path of it is on the command line', () => {
    expect(options.slice(options.indexOf('--bind-fd'), options.indexOf('--bind-fd') + 3)).toEqual([
      '--bind-fd',
      String(BWRAP_FD.workdir),
      SANDBOX_WORKDIR,
    ]);
    expect(options).not.toContain('--bind');
    // Every other path it names is the host's read-only system layout, mounted at the same place.
    const binds = options.flatMap((option, index) =>
      option === '--ro-bind' || option === '--ro-bind-try' ? [options[index + 1]] : [],
    );
    expect(binds).toEqual(['/usr', '/lib', '/etc/hosts']);
  });
});
