import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqliteStorage } from '../adapters/storage/sqlite/create-sqlite-storage.js';
import { seedDemo } from '../runtime/seed-demo.js';
import { askOnTerminal, lineReader } from './answer-on-terminal.js';

const QUESTIONS = [
  { question: 'Which format?', options: ['bullets', 'prose'] },
  { question: 'Anything else?' },
];

describe('askOnTerminal', () => {
  it('takes a number as the option and anything else as the answer, asking again after an empty line', async () => {
    let shown = '';
    const answers = await askOnTerminal(
      QUESTIONS,
      lineReader(Readable.from(['2\n', '\n', 'keep it short\n'])),
      (text) => {
        shown += text;
      },
    );
    expect(answers).toEqual(['prose', 'keep it short']);
    expect(shown).toContain('? Which format?\n  1. bullets\n  2. prose\n');
    expect(shown.match(/> answer: /g)).toHaveLength(2);
  });

  it('gives up when the input ends before every question is answered', async () => {
    expect(
      await askOnTerminal(QUESTIONS, lineReader(Readable.from(['7\n'])), () => undefined),
    ).toBeUndefined();
  });
});

describe('troupe run with a question', { timeout: 60_000 }, () => {
  const ROOT = path.resolve(import.meta.dirname, '../..');
  let dataDir: string;
  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'troupe-cli-ask-'));
    const storage = await createSqliteStorage({ filename: path.join(dataDir, 'troupe.db') });
    await seedDemo(storage);
    await storage.close();
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  function run(input: string): Promise<{ code: number; stdout: string }> {
    return new Promise((resolve) => {
      const child = execFile(
        process.execPath,
        ['--import', 'tsx', 'src/main.ts', 'run', '--agent', 'assistant', 'ask me before you summarise'],
        { cwd: ROOT, timeout: 60_000, env: { ...process.env, TROUPE_DATA_DIR: dataDir } },
        (error, stdout) =>
          resolve({ code: error && typeof error.code === 'number' ? error.code : error ? -1 : 0, stdout }),
      );
      child.stdin?.end(input);
    });
  }

  it('answers on standard input and the run finishes with the answer', async () => {
    const result = await run('2\n');
    expect(result.stdout).toContain('? Which format should the summary have?');
    expect(result.stdout).toContain('Answer: one paragraph');
    expect(result.stdout).toMatch(/run [0-9a-f-]+: completed/);
    expect(result.code).toBe(0);
  });

  it('cancels the run when standard input has no answer', async () => {
    const result = await run('');
    expect(result.stdout).toContain('No answer on standard input: cancelling the run.');
    expect(result.stdout).toMatch(/run [0-9a-f-]+: cancelled/);
    expect(result.code).toBe(1);
  });
});
