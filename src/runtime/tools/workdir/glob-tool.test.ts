import { symlink } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { globTool } from './glob-tool.js';
import { createTempWorkdir, type TempWorkdir } from '../../../../test/helpers/workdir/create-temp-workdir.js';
import { expectTroupeError } from '../../../../test/helpers/workdir/expect-troupe-error.js';
import { makeToolContext } from '../../../../test/helpers/workdir/make-tool-context.js';
import { runTool, runToolForText } from '../../../../test/helpers/workdir/run-tool.js';
import { WORKDIR_TOOL_LIMITS } from './workdir-tool-limits.js';

let temp: TempWorkdir;
beforeEach(async () => {
  temp = await createTempWorkdir();
  for (const file of [
    'README.md',
    'src/a.ts',
    'src/b.tsx',
    'src/lib/c.ts',
    'test/a.test.ts',
    'node_modules/dep/index.ts',
    '.git/config',
  ]) {
    await temp.write(file, 'x');
  }
});
afterEach(async () => {
  await temp.cleanup();
});

const glob = (input: unknown) => runToolForText(globTool, input, makeToolContext(temp.workdir));

describe('glob', () => {
  it('matches across directories with **, skipping node_modules and .git', async () => {
    expect(await glob({ pattern: '**/*.ts' })).toBe(
      ['src/a.ts', 'src/lib/c.ts', 'test/a.test.ts'].join('\n'),
    );
  });

  it('supports braces, ? and a literal prefix', async () => {
    expect(await glob({ pattern: 'src/*.{ts,tsx}' })).toBe('src/a.ts\nsrc/b.tsx');
    expect(await glob({ pattern: 'src/?.ts' })).toBe('src/a.ts');
    expect(await glob({ pattern: '{src,test}/**/a*' })).toBe('src/a.ts\ntest/a.test.ts');
    expect(await glob({ pattern: 'README.md' })).toBe('README.md');
  });

  it('searches from path and returns workdir-relative paths', async () => {
    expect(await glob({ pattern: '**/*.ts', path: 'src' })).toBe('src/a.ts\nsrc/lib/c.ts');
    expect(await glob({ pattern: '*.ts', path: 'src' })).toBe('src/a.ts');
  });

  it('says so when nothing matches', async () => {
    expect(await glob({ pattern: '**/*.py' })).toBe('No files match "**/*.py"');
    expect(await glob({ pattern: 'nope/**/*.ts' })).toBe('No files match "nope/**/*.ts"');
  });

  it('does not descend through a symlink pointing outside', async () => {
    await temp.write('../outside/deep/leak.ts', 'x');
    await symlink(temp.outside, path.join(temp.workdir, 'out'));
    await symlink(path.join(temp.outside, 'secret.txt'), path.join(temp.workdir, 'secret.txt'));
    expect(await glob({ pattern: '**/*' })).not.toMatch(/leak|secret/);
    expect(await glob({ pattern: 'out/**/*.ts' })).toBe('No files match "out/**/*.ts"');
  });

  it('lists a symlinked file that stays inside', async () => {
    await symlink('src/a.ts', path.join(temp.workdir, 'alias.ts'));
    expect(await glob({ pattern: '*.ts' })).toBe('alias.ts');
  });

  it('refuses patterns and paths that leave the workdir', async () => {
    await expectTroupeError(glob({ pattern: '../outside/*' }), 'tool_input_invalid');
    await expectTroupeError(glob({ pattern: '/etc/*' }), 'tool_input_invalid');
    await expectTroupeError(glob({ pattern: '*', path: '..' }), 'path_outside_workdir');
    await expectTroupeError(glob({ pattern: '*', path: 'README.md' }), 'tool_input_invalid');
  });

  it('caps the results', async () => {
    await Promise.all(
      Array.from({ length: WORKDIR_TOOL_LIMITS.globResults + 10 }, (_, index) =>
        temp.write(`gen/f${index}.txt`, ''),
      ),
    );
    const lines = (await glob({ pattern: 'gen/*.txt' })).split('\n');
    expect(lines).toHaveLength(WORKDIR_TOOL_LIMITS.globResults + 1);
    expect(lines.at(-1)).toContain('stopped at 1000 files');
  });

  it('stops when aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const context = makeToolContext(temp.workdir, { abortSignal: controller.signal });
    await expect(runTool(globTool, { pattern: '**/*' }, context)).rejects.toThrow(/abort/i);
  });
});
