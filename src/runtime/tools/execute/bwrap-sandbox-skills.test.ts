import { lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { skillDigest } from '../../../core/skills/build-skill-package.js';
import { projectSkills } from '../../skills/project-skills.js';
import { createBwrapSandbox, type SandboxMode } from './bwrap-sandbox.js';
import {
  makeSandboxWorkdir,
  SANDBOX_SKIP_REASON,
  SANDBOX_TOOLS,
  TEST_LIMITS,
} from '../../../../test/helpers/execute/sandbox-fixture.js';

// A uid of this file's own, so no other suite's sandboxes share it.
const SANDBOX_UID = 100_000 + 4545;
// `mapped` is what a root server gets, `user` what any other server gets (bwrap-sandbox.test.ts runs it as root).
const MODES: SandboxMode[] = process.getuid?.() === 0 ? ['mapped'] : ['user'];

let root: string;
let workdir: string;
let skills: string;

beforeEach(() => {
  ({ root, workdir } = makeSandboxWorkdir('troupe-sandbox-skills-', SANDBOX_UID));
  skills = path.join(workdir, '.skills');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** Each attempt prints `BROKE name` only if it succeeded. */
function attempts(named: Record<string, string>): string {
  return Object.entries(named)
    .map(([name, command]) => `(${command}) 2>/dev/null && echo "BROKE ${name}"`)
    .join('; ');
}

describe.skipIf(!SANDBOX_TOOLS).each(MODES)(`.skills in the %s sandbox${SANDBOX_SKIP_REASON}`, (mode) => {
  const sandbox =
    SANDBOX_TOOLS && createBwrapSandbox({ tools: SANDBOX_TOOLS, sandboxUid: SANDBOX_UID, mode });
  const run = (command: string) => {
    if (!sandbox) throw new Error('no sandbox');
    return sandbox.run({ command, workdir, network: false, limits: TEST_LIMITS });
  };

  it('is readable but read-only: no write, delete or rename inside it, while the rest of the workspace stays writable', async () => {
    mkdirSync(path.join(skills, 'tool'), { recursive: true });
    writeFileSync(path.join(skills, 'tool/SKILL.md'), 'the skill\n');
    const result = await run(
      [
        attempts({
          write: 'echo x > .skills/tool/SKILL.md',
          append: 'echo x >> .skills/tool/SKILL.md',
          create: 'echo x > .skills/tool/new.md',
          mkdir: 'mkdir .skills/other',
          chmod: 'chmod 777 .skills/tool/SKILL.md',
          delete: 'rm -f .skills/tool/SKILL.md',
          'delete folder': 'rm -rf .skills/tool',
          rename: 'mv .skills/tool .skills/moved',
          'move out': 'mv .skills/tool moved',
          'rename .skills': 'mv .skills gone',
          'remove .skills': 'rm -rf .skills',
          'link over .skills': 'ln -sfnT /etc .skills',
        }),
        'cat .skills/tool/SKILL.md',
        'mkdir -p out && echo out > out/file && mv out out2 && echo kept > kept.txt && rm out2/file && echo workspace-writable',
        // The descriptors the runner passed are closed before the command starts.
        'test -e /proc/$$/fd/6 || test -e /proc/$$/fd/7 || echo no-fds',
      ].join('; '),
    );
    expect(result.stdout).toBe('the skill\nworkspace-writable\nno-fds\n');
    expect(readdirSync(skills)).toEqual(['tool']);
    expect(readdirSync(path.join(skills, 'tool'))).toEqual(['SKILL.md']);
    expect(readFileSync(path.join(skills, 'tool/SKILL.md'), 'utf8')).toBe('the skill\n');
    expect(readFileSync(path.join(workdir, 'kept.txt'), 'utf8')).toBe('kept\n');
    expect(readdirSync(path.join(workdir, 'out2'))).toEqual([]);
  });

  it('cannot be created by the command when missing; projection fills it from the host afterwards', async () => {
    const empty = await run(
      `ls -A .skills | wc -l; ${attempts({ mkdir: 'mkdir .skills/fake', create: 'echo x > .skills/fake.md' })}`,
    );
    expect(empty.stdout).toBe('0\n');
    expect(lstatSync(skills).isDirectory()).toBe(true);
    expect(readdirSync(skills)).toEqual([]);

    const files = [{ path: 'SKILL.md', content: new TextEncoder().encode('projected\n') }];
    await projectSkills({
      workdir,
      skills: [{ name: 'tool', digest: skillDigest(files), loadFiles: () => Promise.resolve(files) }],
      stillVisible: () => Promise.resolve(new Set()),
    });
    const read = await run(
      `cat .skills/tool/SKILL.md; ${attempts({ write: 'echo x > .skills/tool/SKILL.md' })}`,
    );
    expect(read.stdout).toBe('projected\n');
  });

  it('never follows a .skills symlink to a host folder: the target is neither mounted nor touched', async () => {
    const outside = path.join(root, 'outside');
    mkdirSync(outside);
    writeFileSync(path.join(outside, 'secret.txt'), 'host secret');
    symlinkSync(outside, skills);
    const result = await run(
      [
        'cat .skills/secret.txt 2>/dev/null || echo no-secret',
        'ls -A .skills | wc -l',
        attempts({ plant: 'echo x > .skills/planted' }),
        // Field 4 of mountinfo: the directory mounted there, as a path in its own file system.
        'awk \'$5 == "/workspace/.skills" { print $4 }\' /proc/self/mountinfo',
      ].join('; '),
    );
    const [noSecret, count, mounted, ...rest] = result.stdout.split('\n');
    expect([noSecret, count, rest]).toEqual(['no-secret', '0', ['']]);
    expect(mounted).toMatch(/\/workdir\/\.skills$/);
    expect(result.stdout).not.toContain('outside');
    expect(readdirSync(outside)).toEqual(['secret.txt']);
    expect(readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe('host secret');
    expect(lstatSync(skills).isDirectory()).toBe(true);
  });
});
