import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createBwrapSandbox } from './bwrap-sandbox.js';
import type { Sandbox, SandboxLimits, SandboxRequest } from './sandbox.js';
import {
  hostProcessesOfUid,
  hostProcessesWith,
  makeSandboxWorkdir,
  SANDBOX_SKIP_REASON,
  SANDBOX_TOOLS,
  TEST_LIMITS,
  until,
} from '../../../../test/helpers/execute/sandbox-fixture.js';

// A uid of this file's own, so the process counts below see no other suite's sandboxes.
const SANDBOX_UID = 100_000 + 4242;
const asRoot = process.getuid?.() === 0;

let sandbox: Sandbox;
let root: string;
let workdir: string;

beforeAll(() => {
  if (SANDBOX_TOOLS) sandbox = createBwrapSandbox({ tools: SANDBOX_TOOLS, sandboxUid: SANDBOX_UID });
});
beforeEach(() => {
  ({ root, workdir } = makeSandboxWorkdir('troupe-sandbox-', SANDBOX_UID));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function run(command: string, limits: Partial<SandboxLimits> = {}, extra: Partial<SandboxRequest> = {}) {
  return sandbox.run({ command, workdir, network: false, limits: { ...TEST_LIMITS, ...limits }, ...extra });
}

describe.skipIf(!SANDBOX_TOOLS)(`the bubblewrap sandbox${SANDBOX_SKIP_REASON}`, () => {
  it('reports the exit code, stdout and stderr of the command', async () => {
    const result = await run('echo out; echo err >&2; exit 7');
    expect(result).toEqual({
      exitCode: 7,
      signal: null,
      stdout: 'out\n',
      stderr: 'err\n',
      omitted: { stdout: 0, stderr: 0 },
      timedOut: false,
    });
  });

  it('runs in the workdir as an unprivileged user; what it writes is its own, a file of the server stays as it is', async () => {
    writeFileSync(path.join(workdir, 'owned-by-server.txt'), 'one\n');
    const result = await run(
      'pwd; id -u; echo made > made.txt; mkdir -p out/deep && echo deep > out/deep/file; chmod 600 made.txt; ' +
        '(echo two >> owned-by-server.txt) 2>/dev/null || echo refused; cat owned-by-server.txt',
    );
    expect(result.stdout).toBe(`/workspace\n1000\n${asRoot ? 'refused\n' : ''}one\n${asRoot ? '' : 'two\n'}`);
    expect(result.exitCode).toBe(0);
    expect(readFileSync(path.join(workdir, 'made.txt'), 'utf8')).toBe('made\n');
    expect(readFileSync(path.join(workdir, 'out/deep/file'), 'utf8')).toBe('deep\n');
    if (asRoot) {
      expect(statSync(path.join(workdir, 'made.txt')).uid).toBe(SANDBOX_UID);
      expect(readFileSync(path.join(workdir, 'owned-by-server.txt'), 'utf8')).toBe('one\n');
    }
  });

  it('cannot write outside the workdir: system dirs are read-only, other host paths do not exist, /tmp is private', async () => {
    const sibling = path.join(root, 'sibling');
    mkdirSync(sibling);
    const marker = `troupe-escape-${process.pid}-${Date.now()}`;
    const attempts = [
      `echo x > ${sibling}/x`,
      `echo x > ${workdir}/x`,
      `echo x > ../escaped`,
      'echo x > /usr/evil',
      'echo x > /etc/evil',
      'echo x > /evil',
      'mkdir /root/evil',
    ];
    const result = await run(
      `${attempts.map((attempt) => `(${attempt}) 2>/dev/null && echo WROTE`).join('; ')}; echo tmp > /tmp/${marker} && cat /tmp/${marker}`,
    );
    expect(result.stdout).toBe('tmp\n');
    expect(existsSync(path.join(sibling, 'x'))).toBe(false);
    expect(existsSync(path.join(root, 'escaped'))).toBe(false);
    expect(existsSync(path.join(workdir, 'x'))).toBe(false);
    expect(existsSync(path.join(os.tmpdir(), marker))).toBe(false);
    expect(existsSync('/usr/evil')).toBe(false);
  });

  it('cannot read /etc/shadow, /root or the server data next to the workdir', async () => {
    writeFileSync(path.join(root, 'troupe.db'), 'secret');
    const result = await run(
      `cat /etc/shadow; cat /etc/gshadow; ls /root; cat ${root}/troupe.db; cat ../troupe.db; echo done`,
    );
    expect(result.stdout).toBe('done\n');
    expect(result.stderr).not.toContain('secret');
    expect(result.stderr).toContain('/etc/shadow: No such file or directory');
  });

  it('has no network by default: a server on the host loopback is unreachable; network: true reaches it', async () => {
    const server: Server = createServer((socket) => socket.end('hello from the host\n'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    try {
      const probe = `exec 3<>/dev/tcp/127.0.0.1/${port} && cat <&3`;
      const isolated = await run(probe);
      expect(isolated.exitCode).not.toBe(0);
      expect(isolated.stdout).toBe('');
      expect(isolated.stderr).toMatch(/Connection refused|Network is unreachable/);
      const networked = await run(probe, {}, { network: true });
      expect(networked).toMatchObject({ exitCode: 0, stdout: 'hello from the host\n' });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('contains a fork bomb: the process limit holds, the run ends, nothing is left and the host still forks', async () => {
    const counting = process.getuid?.() === 0;
    let highest = 0;
    // What the command started: bubblewrap's own processes run as the sandbox uid too, outside the limit.
    const sampler = setInterval(
      () => (highest = Math.max(highest, hostProcessesOfUid(SANDBOX_UID, true))),
      25,
    );
    try {
      const result = await run('bomb() { bomb | bomb & }; bomb; sleep 2; echo survived', {
        maxProcesses: 24,
        timeoutMs: 5_000,
      });
      expect(result.stderr).toContain('fork: ');
      expect(result.exitCode === 0 || result.timedOut).toBe(true);
    } finally {
      clearInterval(sampler);
    }
    if (counting) {
      expect(highest).toBeGreaterThan(1);
      expect(highest).toBeLessThanOrEqual(24);
      await until(() => hostProcessesOfUid(SANDBOX_UID) === 0, 'the bomb to be gone');
    }
    expect(spawnSync('true').status).toBe(0);
  });

  it('caps the output it keeps and says how much was dropped', async () => {
    const result = await run("head -c 5000000 /dev/zero | tr '\\0' a; echo done >&2", { outputBytes: 1000 });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe('a'.repeat(1000));
    expect(result.omitted).toEqual({ stdout: 5_000_000 - 1000, stderr: 5 });
  });

  it('kills the whole tree at the wall-time limit and says so', async () => {
    const marker = `${3000 + (process.pid % 1000)}.${Date.now() % 100000}`;
    const result = await run(`sleep ${marker} & sleep ${marker}`, { timeoutMs: 500 });
    expect(result.timedOut).toBe(true);
    expect(result.exitCode).toBeNull();
    await until(() => hostProcessesWith(marker).length === 0, 'the sleeps to be gone');
  });

  it('kills the whole tree when aborted mid-command and rejects with the reason', async () => {
    const marker = `${4000 + (process.pid % 1000)}.${Date.now() % 100000}`;
    const controller = new AbortController();
    // `started` appears once both sleeps exist; one is in the background with its output closed.
    const running = run(
      `sleep ${marker} >/dev/null 2>&1 & echo $! > started; sleep ${marker}`,
      {},
      { signal: controller.signal },
    );
    await until(() => existsSync(path.join(workdir, 'started')), 'the command to start');
    expect(hostProcessesWith(marker).length).toBeGreaterThanOrEqual(1);
    controller.abort(new Error('run cancelled'));
    await expect(running).rejects.toThrow('run cancelled');
    await until(() => hostProcessesWith(marker).length === 0, 'the sleeps to be gone');
  });

  it('stops a CPU-bound process at its CPU limit', async () => {
    const result = await run('while :; do :; done', { cpuSeconds: 1, timeoutMs: 20_000 });
    expect(result.timedOut).toBe(false);
    expect(result.exitCode).toBeGreaterThan(128);
  });

  it('limits memory, file size and /tmp', async () => {
    const memory = await run("v=$(head -c 100000000 /dev/zero | tr '\\0' a); echo ${#v}", {
      memoryBytes: 64 * 1024 * 1024,
    });
    expect(memory.stdout).not.toContain('100000000');
    const file = await run('head -c 3000000 /dev/zero > big', { fileBytes: 1024 * 1024 });
    expect(file.exitCode).not.toBe(0);
    expect(statSync(path.join(workdir, 'big')).size).toBeLessThanOrEqual(1024 * 1024);
    for (const target of ['/tmp/big', '/dev/shm/big']) {
      const tmp = await run(`head -c 3000000 /dev/zero > ${target}`, { tmpBytes: 1024 * 1024 });
      expect(tmp.exitCode).not.toBe(0);
      expect(tmp.stderr).toContain('No space left on device');
    }
    // The other in-memory file systems (the root, /dev, /etc) take nothing at all.
    const readOnly = await run(
      'for target in /big /dev/big /etc/big; do echo x > $target || echo refused; done; echo ok > /dev/null && echo devnull',
    );
    expect(readOnly.stdout).toBe('refused\nrefused\nrefused\ndevnull\n');
  });

  it('refuses nested user namespaces and keeps only a clean environment', async () => {
    const result = await run('unshare -U true && echo NESTED; env | sort');
    expect(result.stdout).not.toContain('NESTED');
    expect(result.stderr).toContain('Operation not permitted');
    expect(result.stdout).toContain('HOME=/tmp');
    expect(result.stdout).not.toMatch(/TROUPE_|VITEST|npm_/);
  });
});

// `user` mode is what a server that is not root gets: bubblewrap runs as that user. Run as root, this test
// starts it as another uid (a non-root server's), through a script of its own.
const USER_MODE_UID = 100_000 + 4243;
const REPO = path.resolve(import.meta.dirname, '../../../..');
const USER_MODE_SCRIPT = path.join(REPO, 'test/helpers/execute/user-mode-sandbox.ts');

describe.skipIf(!SANDBOX_TOOLS)(`the bubblewrap sandbox in user mode${SANDBOX_SKIP_REASON}`, () => {
  it('isolates the same way: workdir writable, nothing else, no shadow, no network, no capability', () => {
    const serverUid = asRoot ? USER_MODE_UID : (process.getuid?.() ?? 0);
    const own = makeSandboxWorkdir('troupe-sandbox-user-', serverUid);
    try {
      const command =
        'id -u; echo kept > kept.txt; echo x > /usr/evil || echo ro; cat /etc/shadow || echo noshadow; ' +
        'exec 3<>/dev/tcp/127.0.0.1/9 || echo nonet; grep CapEff /proc/self/status';
      const child = spawnSync(process.execPath, ['--import', 'tsx', USER_MODE_SCRIPT, own.workdir, command], {
        encoding: 'utf8',
        // Where `tsx` resolves from.
        cwd: REPO,
        ...(asRoot ? { uid: serverUid, gid: serverUid } : {}),
      });
      expect(child.stderr).toBe('');
      const result = JSON.parse(child.stdout) as { stdout: string };
      expect(result.stdout).toBe('1000\nro\nnoshadow\nnonet\nCapEff:\t0000000000000000\n');
      expect(readFileSync(path.join(own.workdir, 'kept.txt'), 'utf8')).toBe('kept\n');
      expect(statSync(path.join(own.workdir, 'kept.txt')).uid).toBe(serverUid);
    } finally {
      rmSync(own.root, { recursive: true, force: true });
    }
  });

  it.runIf(asRoot)('is refused to a root server, whose user mode would map host root', () => {
    expect(() =>
      createBwrapSandbox({
        tools: SANDBOX_TOOLS as NonNullable<typeof SANDBOX_TOOLS>,
        sandboxUid: 1,
        mode: 'user',
      }),
    ).toThrow(/would map host root/);
  });
});
