import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openUploads, writeUpload } from '../../attachments/write-upload.js';
import { createBwrapSandbox } from './bwrap-sandbox.js';
import type { Sandbox } from './sandbox.js';
import {
  hostProcessesWith,
  makeSandboxWorkdir,
  SANDBOX_SKIP_REASON,
  SANDBOX_TOOLS,
  TEST_LIMITS,
  until,
} from '../../../../test/helpers/execute/sandbox-fixture.js';
import { snapshotTree } from '../../../../test/helpers/workdir/snapshot-tree.js';

// A uid of this file's own, so no other suite's sandboxes share it.
const SANDBOX_UID = 100_000 + 4444;
const asRoot = process.getuid?.() === 0;

let root: string;
let workdir: string;
let sandbox: Sandbox;

beforeEach(() => {
  ({ root, workdir } = makeSandboxWorkdir('troupe-host-safety-', SANDBOX_UID));
  if (SANDBOX_TOOLS) sandbox = createBwrapSandbox({ tools: SANDBOX_TOOLS, sandboxUid: SANDBOX_UID });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const run = (command: string, signal?: AbortSignal) =>
  sandbox.run({ command, workdir, network: false, limits: TEST_LIMITS, ...(signal ? { signal } : {}) });

/** Each attempt prints `DID name` only if it succeeded. */
function attempts(named: Record<string, string>): string {
  return Object.entries(named)
    .map(([name, command]) => `(${command}) 2>/dev/null && echo "DID ${name}"`)
    .join('; ');
}

/** Files under `directory` (not following links) that carry a setuid or setgid bit. */
function setidFiles(directory: string): string[] {
  return readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => !entry.isSymbolicLink())
    .map((entry) => path.join(entry.parentPath, entry.name))
    .filter((file) => (statSync(file).mode & 0o6000) !== 0);
}

async function uploadServerFile(name: string, content: string): Promise<string> {
  const uploads = await openUploads(workdir);
  try {
    return (await writeUpload(uploads, name, new TextEncoder().encode(content))).path;
  } finally {
    await uploads.close();
  }
}

describe.skipIf(!SANDBOX_TOOLS)(`what the sandbox holds on the host${SANDBOX_SKIP_REASON}`, () => {
  it('runs as the sandbox uid with host root unmapped and no capability, as seen from the host', async () => {
    const marker = `${5000 + (process.pid % 1000)}.${Date.now() % 100000}`;
    const controller = new AbortController();
    const running = run(`sleep ${marker}`, controller.signal).catch(() => undefined);
    // bubblewrap's own processes carry the command line too: the command is the `sleep`.
    const command = () =>
      hostProcessesWith(marker).find((pid) => readFileSync(`/proc/${pid}/comm`, 'utf8') === 'sleep\n');
    await until(() => command() !== undefined, 'the command to start');
    const pid = command();
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const uidMap = readFileSync(`/proc/${pid}/uid_map`, 'utf8');
    const gidMap = readFileSync(`/proc/${pid}/gid_map`, 'utf8');
    controller.abort(new Error('done'));
    await running;
    const hostUid = asRoot ? SANDBOX_UID : process.getuid?.();
    expect(status).toMatch(new RegExp(`^Uid:\\s+${hostUid}\\s+${hostUid}\\s+${hostUid}\\s+${hostUid}$`, 'm'));
    for (const set of ['CapInh', 'CapPrm', 'CapEff', 'CapBnd', 'CapAmb']) {
      expect(status).toMatch(new RegExp(`^${set}:\\s+0000000000000000$`, 'm'));
    }
    // Each line: first id inside, first id on the host, count. Host ids are never negative, so a range reaches
    // host id 0 exactly when it starts there.
    for (const map of [uidMap, gidMap]) {
      const lines = map.trim().split('\n');
      expect(lines.length).toBeGreaterThan(0);
      for (const line of lines) {
        const [, hostFirst = '', count = ''] = line.trim().split(/\s+/);
        expect(Number(count)).toBeGreaterThan(0);
        expect(Number(hostFirst)).toBeGreaterThan(0);
      }
    }
  });

  it('carries no host path on its command line: /proc/1/cmdline and every other one inside', async () => {
    const result = await run(
      'cat /proc/1/cmdline; echo; for f in /proc/[0-9]*/cmdline; do tr "\\0" " " < $f; echo; done',
    );
    expect(result.stdout).toContain('--bind-fd');
    expect(result.stdout).not.toContain(workdir);
    expect(result.stdout).not.toContain(root);
  });

  it('never makes a setuid or setgid file: chmod and create modes with those bits are refused', async () => {
    const result = await run(
      attempts({
        'chmod 4755': 'cp /bin/bash mine && chmod 4755 mine',
        'chmod u+s': 'chmod u+s mine',
        'chmod g+s': 'chmod g+s mine',
        'chmod 2755 dir': 'mkdir d && chmod 2755 d',
        'install -m 4755': 'install -m 4755 /bin/bash installed',
        'create 4755': 'perl -MFcntl -e \'sysopen(my $f, "created", O_CREAT|O_WRONLY, 04755) or exit 1\'',
      }) + '; chmod 700 mine && echo plain-chmod-ok',
    );
    expect(result.stdout).toBe('plain-chmod-ok\n');
    expect(setidFiles(workdir)).toEqual([]);
  });
});

describe.skipIf(!SANDBOX_TOOLS || !asRoot)(
  `files the server writes, in a root server's sandbox${SANDBOX_SKIP_REASON}`,
  () => {
    it('are readable inside, but their mode, owner and content cannot be changed there', async () => {
      const uploaded = await uploadServerFile('report.txt', 'uploaded by the user\n');
      const before = snapshotTree(path.join(workdir, 'uploads'));
      const result = await run(
        `cat ${uploaded}; ` +
          attempts({
            write: `echo x >> ${uploaded}`,
            truncate: `: > ${uploaded}`,
            chmod: `chmod 666 ${uploaded}`,
            chown: `chown 1000:1000 ${uploaded}`,
            touch: `touch -d 2000-01-01 ${uploaded}`,
          }),
      );
      expect(result.stdout).toBe('uploaded by the user\n');
      expect(snapshotTree(path.join(workdir, 'uploads'))).toEqual(before);
    });

    it('the attack of issue 31: an uploaded file overwritten with a shell and made setuid leaves no root setuid file', async () => {
      const uploaded = await uploadServerFile('f', 'an attachment\n');
      const result = await run(`cat /bin/bash > ${uploaded} && chmod 4755 ${uploaded}; echo exit=$?`);
      expect(result.stdout).toBe('exit=1\n');
      const stats = statSync(path.join(workdir, uploaded));
      expect(stats.uid).toBe(0);
      expect(stats.mode & 0o7777).toBe(0o644);
      expect(readFileSync(path.join(workdir, uploaded), 'utf8')).toBe('an attachment\n');
      // Replacing the file (the folder is the sandbox's to work in) gives the sandbox's own file, never root's.
      const replaced = await run(
        `rm -f ${uploaded} && cat /bin/bash > ${uploaded} && chmod 4755 ${uploaded}; echo exit=$?`,
      );
      expect(replaced.stdout).toBe('exit=1\n');
      expect(statSync(path.join(workdir, uploaded)).uid).toBe(SANDBOX_UID);
      expect(setidFiles(workdir)).toEqual([]);
    });
  },
);
