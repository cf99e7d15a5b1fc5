import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stdioTestServer } from '../../test/helpers/mcp/start-mcp-test-server.js';
import type { BuildReport } from '../runtime/build-report/compute-build-report.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'troupe-check-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, content: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, content);
  return file;
}

/** The real CLI, as a user runs it. */
function troupe(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return troupeWith({}, ...args);
}

function troupeWith(
  env: Record<string, string>,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const options = { cwd: ROOT, timeout: 240_000, env: { ...process.env, ...env } };
    execFile(
      process.execPath,
      ['--import', 'tsx', 'src/main.ts', ...args],
      options,
      (error, stdout, stderr) => {
        const code = error && typeof error.code === 'number' ? error.code : error ? -1 : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

const GOOD_SPEC = {
  name: 'scanner',
  description: 'Scans',
  system_prompt: 'Scan.',
  tools: ['read_file', 'grep'],
};

// Each case spawns the real CLI (tsx compiling the whole entry point): seconds, not milliseconds, and on a
// loaded 2-core machine four at once can take minutes; the limits only guard against a hang.
describe('troupe agents check FILE', { timeout: 300_000 }, () => {
  it('exits 0 and says so for a clean YAML agent definition', async () => {
    const file = write(
      'clean.yaml',
      [
        'name: Main',
        'slug: main',
        'config:',
        '  tools: [read_file, grep, ls]',
        '  subagent_specs:',
        '    - name: scanner',
        '      description: Scans',
        '      system_prompt: Scan.',
        '      tools: [read_file, "gr*"]',
      ].join('\n'),
    );
    const result = await troupe('agents', 'check', file);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Agent: Main (main)');
    expect(result.stdout).toMatch(/scanner\s+inline\s+scripted:demo\s+read_file, grep/);
    expect(result.stdout).toContain('No problems: every spec resolved.');
  });

  it('exits 1 with a table of every drop for a bare JSON config', async () => {
    const file = write(
      'bad.json',
      JSON.stringify({
        tools: ['read_file'],
        subagent_specs: [GOOD_SPEC, { name: 'task', description: 'x', system_prompt: 'x' }, 'oops'],
      }),
    );
    const result = await troupe('agents', 'check', file);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/SPEC\s+NAME\s+CODE\s+KIND\s+VALUE\s+MESSAGE/);
    expect(result.stdout).toMatch(/#0\s+scanner\s+unknown_tool\s+dropped\s+grep/);
    expect(result.stdout).toMatch(/#1\s+task\s+reserved_name\s+dropped\s+task/);
    expect(result.stdout).toMatch(/#2\s+-\s+not_an_object\s+dropped/);
    expect(result.stdout).toContain('3 dropped, 0 warnings.');
  });

  it('prints the report as JSON with --json', async () => {
    const file = write(
      'bad2.json',
      JSON.stringify({ config: { subagent_specs: [{ ...GOOD_SPEC, tools: 'read_file' }] }, name: 'X' }),
    );
    const result = await troupe('agents', 'check', '--json', file);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as BuildReport;
    expect(report.dropped).toBe(true);
    expect(report.report).toEqual([
      expect.objectContaining({ code: 'tools_not_array', spec_index: 0, spec_name: 'scanner' }),
    ]);
  });

  it('exits 2 on unreadable input', { timeout: 300_000 }, async () => {
    const [missing, broken, invalid, usage] = await Promise.all([
      troupe('agents', 'check', path.join(dir, 'missing.json')),
      troupe('agents', 'check', write('broken.yaml', 'config: [unclosed')),
      troupe('agents', 'check', write('invalid.json', JSON.stringify({ config: { tool: ['x'] } }))),
      troupe('agents', 'check'),
    ]);
    expect([missing.code, broken.code, invalid.code, usage.code]).toEqual([2, 2, 2, 2]);
    expect(missing.stderr).toContain('cannot read');
    expect(invalid.stderr).toContain('config: Unrecognized key: "tool"');
  });

  it(
    'lists MCP tools from a live server and reports one that does not answer',
    { timeout: 120_000 },
    async () => {
      const file = write(
        'mcp.json',
        JSON.stringify({
          mcp_servers: [stdioTestServer('test'), stdioTestServer('gone', { command: '/nonexistent/mcp' })],
          subagent_specs: [
            { ...GOOD_SPEC, tools: ['mcp__test__echo', 'mcp__test__missing', 'mcp__gone__search'] },
            { ...GOOD_SPEC, name: 'web', tools: ['mcp__test__*'] },
          ],
        }),
      );
      // A generous probe deadline: a stdio server started through tsx is slow on a busy machine.
      const result = await troupe('agents', 'check', '--json', '--timeout-ms', '45000', file);
      const report = JSON.parse(result.stdout) as BuildReport;
      expect(report.report.map((entry) => [entry.code, entry.value])).toEqual([
        ['mcp_unreachable', 'gone'],
        ['unknown_tool', 'mcp__test__missing'],
        ['unverified_tool', 'mcp__gone__search'],
      ]);
      expect(report.subagents.find((subagent) => subagent.name === 'scanner')?.tools).toEqual([
        'mcp__test__echo',
      ]);
      expect(report.subagents.find((subagent) => subagent.name === 'web')?.tools).toContain('mcp__test__add');
      expect(result.code).toBe(1);
    },
  );

  it('warns, without failing, that execute is not offered on a machine without a working sandbox', async () => {
    const file = write('execute.json', JSON.stringify({ tools: ['read_file', 'execute'] }));
    const result = await troupeWith(
      { TROUPE_BWRAP_PATH: '/nonexistent/bwrap' },
      'agents',
      'check',
      '--json',
      file,
    );
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as BuildReport;
    expect(report.parent_tools).toEqual(['read_file']);
    expect(report.report).toEqual([expect.objectContaining({ code: 'tool_unavailable', value: 'execute' })]);
    expect(report.report[0]?.message).toContain('bubblewrap not found at /nonexistent/bwrap');
  });
});
