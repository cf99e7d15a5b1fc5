import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../config.js';
import { createTroupe, listen } from '../create-troupe.js';
import { runCli } from './run-cli.js';

let dir: string;
const output: { out: string[]; err: string[] } = { out: [], err: [] };

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'troupe-knowledge-cli-'));
  writeFileSync(path.join(dir, 'tokens.md'), '# Tokens\n\n## Rotation\n\nRotate every token each quarter.\n');
  writeFileSync(path.join(dir, 'ports.html'), '<h1>Ports</h1><p>The server listens on port 3000.</p>');
  vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void output.out.push(args.join(' ')));
  vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void output.err.push(args.join(' ')));
});
afterAll(() => {
  vi.restoreAllMocks();
  rmSync(dir, { recursive: true, force: true });
});

/** The CLI in this process, on a data dir of its own: what `troupe …` runs, without spawning. */
async function troupe(...argv: string[]): Promise<{ code: number | undefined; out: string; err: string }> {
  output.out.length = 0;
  output.err.length = 0;
  const config = loadConfig({ TROUPE_DATA_DIR: path.join(dir, 'data') }, dir);
  const code = await runCli(argv, { loadConfig: () => config, createTroupe, listen });
  return { code, out: output.out.join('\n'), err: output.err.join('\n') };
}

// The first upload in a process starts the extraction worker thread (pdf.js; tsx from the sources).
describe('troupe knowledge', { timeout: 60_000 }, () => {
  it('creates a source, adds files, lists them and searches', async () => {
    expect((await troupe('users', 'create', 'alice')).code).toBe(0);
    expect((await troupe('users', 'create', 'bob')).code).toBe(0);

    const created = await troupe(
      'knowledge',
      'create',
      'ops',
      '--description',
      'Ops notes',
      '--user',
      'alice',
    );
    expect(created).toMatchObject({ code: 0, err: '' });
    expect(created.out).toMatch(/Created knowledge source ops \(kns_[0-9a-f]{20}, private\)/);

    const added = await troupe(
      'knowledge',
      'add',
      'ops',
      path.join(dir, 'tokens.md'),
      path.join(dir, 'ports.html'),
      '--user',
      'alice',
    );
    expect(added.code).toBe(0);
    expect(added.out).toContain('Added tokens.md (text/markdown): 1 chunk.');
    expect(added.out).toContain('Added ports.html (text/html): 1 chunk.');

    expect((await troupe('knowledge', 'list', '--user', 'alice')).out).toMatch(
      /ops\tprivate\t2 documents\t2 chunks/,
    );
    expect((await troupe('knowledge', 'docs', 'ops', '--user', 'alice')).out).toMatch(
      /ports\.html\ttext\/html/,
    );

    const search = await troupe(
      'knowledge',
      'search',
      'ops',
      'how',
      'often',
      'to',
      'rotate',
      'tokens?',
      '--user',
      'alice',
    );
    expect(search.code).toBe(0);
    expect(search.out).toMatch(
      /^\[1\] ops\/tokens\.md § Tokens > Rotation {2}\(chars \d+-\d+, score [\d.]+\)/,
    );
    const json = await troupe(
      'knowledge',
      'search',
      'ops',
      'port',
      '--json',
      '--top-k',
      '1',
      '--user',
      'alice',
    );
    const hits = JSON.parse(json.out) as { document_name: string; location: { heading_path: string[] } }[];
    expect(hits.map((hit) => [hit.document_name, hit.location.heading_path])).toEqual([
      ['ports.html', ['Ports']],
    ]);
  });

  it("keeps another user's private source out of reach", async () => {
    const denied = await troupe('knowledge', 'search', 'ops', 'rotate', '--user', 'bob');
    expect(denied.code).toBe(1);
    expect(denied.err).toContain('(knowledge_source_not_found)');
    expect((await troupe('knowledge', 'list', '--user', 'bob')).out).toBe('');
  });

  it('refuses bad usage with exit 2 and unreadable files with exit 1', async () => {
    expect((await troupe('knowledge', 'add', 'ops', '--user', 'alice')).code).toBe(2);
    expect((await troupe('knowledge', 'frobnicate')).code).toBe(2);
    expect((await troupe('knowledge', 'create', 'x1', '--visibility', 'everyone')).code).toBe(2);
    writeFileSync(path.join(dir, 'data.zip'), 'PK');
    const refused = await troupe('knowledge', 'add', 'ops', path.join(dir, 'data.zip'), '--user', 'alice');
    expect(refused).toMatchObject({ code: 1 });
    expect(refused.err).toContain('(unsupported_media_type)');
    expect((await troupe('knowledge', 'delete', 'ops', '--user', 'alice')).out).toBe(
      'Deleted knowledge source ops.',
    );
  });
});
