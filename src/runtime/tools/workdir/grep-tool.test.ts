import { symlink } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { grepTool } from './grep-tool.js';
import { createTempWorkdir, type TempWorkdir } from '../../../../test/helpers/workdir/create-temp-workdir.js';
import { expectTroupeError } from '../../../../test/helpers/workdir/expect-troupe-error.js';
import { makeToolContext } from '../../../../test/helpers/workdir/make-tool-context.js';
import { runTool, runToolForText } from '../../../../test/helpers/workdir/run-tool.js';
import { WORKDIR_TOOL_LIMITS } from './workdir-tool-limits.js';

let temp: TempWorkdir;
beforeEach(async () => {
  temp = await createTempWorkdir();
  await temp.write('src/a.ts', 'export const TODO = 1;\n// nothing here\n');
  await temp.write('src/lib/b.ts', 'first\r\n// todo: later\r\n');
  await temp.write('notes.md', 'TODO: write docs\n');
  await temp.write('node_modules/dep/index.ts', 'TODO vendored\n');
});
afterEach(async () => {
  await temp.cleanup();
});

const grep = (input: unknown) => runToolForText(grepTool, input, makeToolContext(temp.workdir));

describe('grep', () => {
  it('returns file:line: text for each match, skipping node_modules', async () => {
    expect(await grep({ pattern: 'TODO' })).toBe(
      'notes.md:1: TODO: write docs\nsrc/a.ts:1: export const TODO = 1;',
    );
  });

  it('matches case-insensitively and strips CR', async () => {
    expect(await grep({ pattern: 'todo', ignore_case: true, path: 'src' })).toBe(
      'src/a.ts:1: export const TODO = 1;\nsrc/lib/b.ts:2: // todo: later',
    );
  });

  it('filters by glob on the file name or on the path', async () => {
    expect(await grep({ pattern: 'TODO', glob: '*.md' })).toBe('notes.md:1: TODO: write docs');
    expect(await grep({ pattern: '.', glob: 'src/lib/**' })).toBe(
      'src/lib/b.ts:1: first\nsrc/lib/b.ts:2: // todo: later',
    );
  });

  it('searches a single file given as path', async () => {
    expect(await grep({ pattern: '^//', path: 'src/a.ts' })).toBe('src/a.ts:2: // nothing here');
  });

  it('does not invent an empty line after the final newline', async () => {
    expect(await grep({ pattern: '^$', path: 'notes.md' })).toBe('No matches for /^$/');
  });

  it('rejects an invalid regular expression', async () => {
    const error = await expectTroupeError(grep({ pattern: '(unclosed' }), 'tool_input_invalid');
    expect(error.message).toContain('Invalid regular expression');
  });

  it('skips binary files and files over the size cap', async () => {
    await temp.write('bin.dat', Buffer.concat([Buffer.from('TODO'), Buffer.from([0])]));
    await temp.write('huge.txt', `TODO\n${'x'.repeat(WORKDIR_TOOL_LIMITS.grepFileBytes)}`);
    const output = await grep({ pattern: 'TODO', glob: '*.{dat,txt}' });
    expect(output).toBe('No matches for /TODO/\n(skipped 1 file over 1 MiB)');
  });

  it('caps the matches', async () => {
    await temp.write('many.txt', 'hit\n'.repeat(WORKDIR_TOOL_LIMITS.grepMatches + 50));
    const lines = (await grep({ pattern: 'hit', path: 'many.txt' })).split('\n');
    expect(lines).toHaveLength(WORKDIR_TOOL_LIMITS.grepMatches + 1);
    expect(lines.at(-1)).toContain('stopped at 500 matches');
  });

  it('clips very long lines', async () => {
    await temp.write('long.txt', `TODO${'y'.repeat(1000)}\n`);
    const output = await grep({ pattern: 'TODO', path: 'long.txt' });
    expect(output.length).toBeLessThan(WORKDIR_TOOL_LIMITS.grepLineChars + 20);
    expect(output.endsWith('…')).toBe(true);
  });

  it('does not descend through or read symlinks pointing outside', async () => {
    await temp.write('../outside/deep/leak.txt', 'TODO outside\n');
    await symlink(temp.outside, path.join(temp.workdir, 'out'));
    await symlink(path.join(temp.outside, 'secret.txt'), path.join(temp.workdir, 'secret-link'));
    const output = await grep({ pattern: 'TODO|secret' });
    expect(output).not.toMatch(/outside|top secret/);
    await expectTroupeError(grep({ pattern: 'secret', path: 'secret-link' }), 'path_outside_workdir');
    await expectTroupeError(grep({ pattern: 'x', path: 'out' }), 'path_outside_workdir');
    await expectTroupeError(grep({ pattern: 'x', path: '../outside' }), 'path_outside_workdir');
  });

  it('stops a long search when aborted', async () => {
    await Promise.all(
      Array.from({ length: 400 }, (_, index) =>
        temp.write(`bulk/d${index % 20}/f${index}.txt`, 'needle\n'.repeat(200)),
      ),
    );
    const controller = new AbortController();
    const context = makeToolContext(temp.workdir, { abortSignal: controller.signal });
    const search = runTool(grepTool, { pattern: 'never-present' }, context);
    setImmediate(() => controller.abort());
    await expect(search).rejects.toThrow(/abort/i);
  });

  it('does not start when already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const context = makeToolContext(temp.workdir, { abortSignal: controller.signal });
    await expect(runTool(grepTool, { pattern: 'TODO' }, context)).rejects.toThrow(/abort/i);
  });
});
