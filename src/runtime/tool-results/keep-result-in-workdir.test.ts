import { lstat, mkdir, readFile, symlink } from 'node:fs/promises';
import path from 'node:path';
import { encode } from 'gpt-tokenizer';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Run } from '../../core/records/run.js';
import { createTempWorkdir, type TempWorkdir } from '../../../test/helpers/workdir/create-temp-workdir.js';
import { snapshotTree } from '../../../test/helpers/workdir/snapshot-tree.js';
import { formatChildResult } from '../subagents/format-child-result.js';
import { keepResultInWorkdir, keptResultPath, previewOfWorkdirFile } from './keep-result-in-workdir.js';

let temp: TempWorkdir;

beforeEach(async () => {
  temp = await createTempWorkdir();
  await mkdir(path.join(temp.outside, 'dir'));
});
afterEach(async () => {
  await temp.cleanup();
});

const ID = 'run_child_1';
const inWork = (relative: string) => path.join(temp.workdir, relative);
const LINES = Array.from({ length: 2000 }, (_, index) => `line ${index + 1}: ${'word '.repeat(8)}`).join(
  '\n',
);

/** Each plants links where the kept file goes, as an `execute` command of the same project could. */
const PLANTED: Record<string, (outside: string) => Promise<void>> = {
  '.troupe linked to a directory outside': (outside) => symlink(path.join(outside, 'dir'), inWork('.troupe')),
  '.troupe linked to a file outside': (outside) =>
    symlink(path.join(outside, 'secret.txt'), inWork('.troupe')),
  'tool-results linked to a directory outside': async (outside) => {
    await mkdir(inWork('.troupe'));
    await symlink(outside, inWork('.troupe/tool-results'));
  },
  'the result file linked to a file outside': async (outside) => {
    await mkdir(inWork('.troupe/tool-results'), { recursive: true });
    await symlink(path.join(outside, 'secret.txt'), inWork(keptResultPath(ID)));
  },
  'the result file linked to a missing file outside': async (outside) => {
    await mkdir(inWork('.troupe/tool-results'), { recursive: true });
    await symlink(path.join(outside, 'created-by-server.md'), inWork(keptResultPath(ID)));
  },
};

describe('a result kept in the workdir', () => {
  it.each(Object.keys(PLANTED))('lands in the workdir and changes nothing outside: %s', async (name) => {
    await PLANTED[name]?.(temp.outside);
    const before = snapshotTree(temp.outside);
    const text = await keepResultInWorkdir(LINES, { workdir: temp.workdir, id: ID, maxTokens: 1000 });
    expect(text).toContain(keptResultPath(ID));
    expect(snapshotTree(temp.outside)).toEqual(before);
    expect((await lstat(inWork('.troupe'))).isDirectory()).toBe(true);
    expect((await lstat(inWork(keptResultPath(ID)))).isFile()).toBe(true);
    expect(await readFile(inWork(keptResultPath(ID)), 'utf8')).toBe(LINES);
  });

  it('gives the model the head, the tail, the size in tokens, bytes and lines, and the path', async () => {
    const text = await keepResultInWorkdir(LINES, { workdir: temp.workdir, id: ID, maxTokens: 1000 });
    expect(text.startsWith('line 1: ')).toBe(true);
    expect(text).toContain('line 2000: ');
    expect(text).not.toContain('line 1000: ');
    expect(text).toContain(
      `(${encode(LINES).length} tokens, ${Buffer.byteLength(LINES)} bytes, 2000 lines). ` +
        'Read more with read_file (offset: first line, limit: lines) or grep.]',
    );
    expect(encode(text).length).toBeLessThan(1000);
  });

  it('keeps a result under the token limit as it is, and writes nothing', async () => {
    const short = LINES.slice(0, 3000);
    expect(await keepResultInWorkdir(short, { workdir: temp.workdir, id: ID, maxTokens: 1000 })).toBe(short);
    await expect(lstat(inWork('.troupe'))).rejects.toThrow();
  });

  it('counts text that spells a special token as text (a file about tokenizers), instead of failing', async () => {
    const spelled = `${'<|endoftext|> '.repeat(400)}${LINES}`;
    const text = await keepResultInWorkdir(spelled, { workdir: temp.workdir, id: ID, maxTokens: 1000 });
    expect(text).toContain(keptResultPath(ID));
    expect(await readFile(inWork(keptResultPath(ID)), 'utf8')).toBe(spelled);
  });

  it('a file the model read is previewed with its own path, not copied', async () => {
    const text = await previewOfWorkdirFile(LINES, 'notes/big.txt', { maxTokens: 1000 });
    expect(text).toContain('Result kept in the workdir: notes/big.txt (');
    await expect(lstat(inWork('.troupe'))).rejects.toThrow();
  });

  it('keeps a child result over the byte cap (the child result cap) in the same place', async () => {
    const run = { id: ID, status: 'completed', output: 'x'.repeat(500), error: null } as unknown as Run;
    const { text } = await formatChildResult(run, temp.workdir, { maxBytes: 100, maxTokens: 8000 });
    expect(text).toContain(`Result kept in the workdir: ${keptResultPath(ID)} (`);
    expect(await readFile(inWork(keptResultPath(ID)), 'utf8')).toBe('x'.repeat(500));
    expect((await formatChildResult(run, temp.workdir, { maxBytes: 1000, maxTokens: 8000 })).text).toBe(
      'x'.repeat(500),
    );
  });
});
