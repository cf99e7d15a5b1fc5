import { mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { TroupeError } from '../../../core/errors.js';
import { loadScenarioFile } from './load-scenario-file.js';
import { ScenarioStore } from './scenario-store.js';

function tempDir(): string {
  return mkdtempSync(path.join(tmpdir(), 'troupe-scenarios-'));
}

async function loadError(fileName: string, source: string): Promise<TroupeError> {
  const dir = tempDir();
  writeFileSync(path.join(dir, fileName), source);
  const error = await new ScenarioStore(dir).load(path.parse(fileName).name).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(TroupeError);
  return error as TroupeError;
}

describe('scenario file validation', () => {
  it.each([
    ['broken YAML', 'x.yaml', 'rules: [', /x\.yaml cannot be parsed/],
    ['broken JSON', 'x.json', '{"rules": ', /x\.json cannot be parsed/],
    ['no rules', 'x.yaml', 'description: nothing', /x\.yaml is invalid: rules: /],
    [
      'an unknown key',
      'x.yaml',
      'rules: [{ steps: [{ text: hi, delay: 5 }] }]',
      /rules\.0\.steps\.0: .*delay/,
    ],
    ['an empty step', 'x.yaml', 'rules: [{ steps: [{ delay_ms: 5 }] }]', /rules\.0\.steps\.0: a step needs/],
    [
      'an unknown placeholder',
      'x.yaml',
      'rules: [{ steps: [{ text: "{{inptu}}" }] }]',
      /unknown placeholder \{\{inptu\}\}/,
    ],
    [
      'an unknown placeholder in args',
      'x.yaml',
      'rules: [{ steps: [{ tool_calls: [{ name: t, args: { a: ["{{nope}}"] } }] }] }]',
      /rules\.0\.steps\.0\.tool_calls\.0\.args\.a\.0: unknown placeholder/,
    ],
    [
      'a bad regex',
      'x.yaml',
      'rules: [{ when: { matches: "(" }, steps: [{ text: hi }] }]',
      /when\.matches: not a valid regular expression/,
    ],
    [
      'an empty matcher',
      'x.yaml',
      'rules: [{ when: {}, steps: [{ text: hi }] }]',
      /`when` needs `contains` or `matches`/,
    ],
    ['a negative delay', 'x.yaml', 'rules: [{ steps: [{ text: hi, delay_ms: -1 }] }]', /delay_ms/],
  ])('rejects %s with scenario_invalid and the file path', async (_label, fileName, source, message) => {
    const error = await loadError(fileName, source);
    expect(error.code).toBe('scenario_invalid');
    expect(error.message).toContain(fileName);
    expect(error.message).toMatch(message);
  });

  it('accepts JSON files and defaults args to {}', async () => {
    const dir = tempDir();
    writeFileSync(
      path.join(dir, 'j.json'),
      JSON.stringify({ rules: [{ steps: [{ tool_calls: [{ name: 'ls' }] }] }] }),
    );
    const scenario = await new ScenarioStore(dir).load('j');
    expect(scenario.rules[0]?.steps[0]?.tool_calls?.[0]).toEqual({ name: 'ls', args: {} });
  });
});

describe('ScenarioStore', () => {
  it('shares one read and parse between concurrent first loads, and does not cache a broken file', async () => {
    const dir = tempDir();
    try {
      writeFileSync(path.join(dir, 'busy.yaml'), 'rules: [{ steps: [{ text: hi }] }]');
      const store = new ScenarioStore(dir);
      const loaded = await Promise.all(Array.from({ length: 20 }, () => store.load('busy')));
      expect(new Set(loaded).size).toBe(1);
      writeFileSync(path.join(dir, 'broken.yaml'), 'rules: [');
      await expect(store.load('broken')).rejects.toBeInstanceOf(TroupeError);
      writeFileSync(path.join(dir, 'broken.yaml'), 'rules: [{ steps: [{ text: fixed }] }]');
      utimesSync(path.join(dir, 'broken.yaml'), new Date(), new Date(Date.now() + 5000));
      expect((await store.load('broken')).rules[0]?.steps[0]?.text).toBe('fixed');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('re-reads a file when its mtime changes and caches it otherwise', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'live.yaml');
    writeFileSync(file, 'rules: [{ steps: [{ text: first }] }]');
    utimesSync(file, new Date(1_000_000), new Date(1_000_000));
    const store = new ScenarioStore(dir);
    const before = await store.load('live');
    expect(before.rules[0]?.steps[0]?.text).toBe('first');
    expect(await store.load('live')).toBe(before);

    writeFileSync(file, 'rules: [{ steps: [{ text: again }] }]'); // same size as before
    utimesSync(file, new Date(2_000_000), new Date(2_000_000));
    expect((await store.load('live')).rules[0]?.steps[0]?.text).toBe('again');
  });

  it('prefers .yaml over .yml over .json and lists names once', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'a.json'), '{"rules":[{"steps":[{"text":"json"}]}]}');
    writeFileSync(path.join(dir, 'a.yml'), 'rules: [{ steps: [{ text: yml }] }]');
    writeFileSync(path.join(dir, 'b.json'), '{"rules":[{"steps":[{"text":"b"}]}]}');
    writeFileSync(path.join(dir, 'README.md'), '# not a scenario');
    const store = new ScenarioStore(dir);
    expect((await store.load('a')).rules[0]?.steps[0]?.text).toBe('yml');
    expect(store.list()).toEqual(['a', 'b']);
  });

  it('reports a missing or deleted scenario as model_not_found with what is available', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'here.yaml'), 'rules: [{ steps: [{ text: hi }] }]');
    const store = new ScenarioStore(dir);
    await expect(store.load('gone')).rejects.toMatchObject({ code: 'model_not_found' });
    await expect(store.load('gone')).rejects.toThrow('available scenarios: here');
    await store.load('here');
    rmSync(path.join(dir, 'here.yaml'));
    await expect(store.load('here')).rejects.toMatchObject({ code: 'model_not_found' });
    expect(store.find('../here')).toBeUndefined();
  });
});

describe('the scenarios folder', () => {
  const folder = fileURLToPath(new URL('../../../../scenarios/', import.meta.url));
  const files = readdirSync(folder).filter((name) => /\.(ya?ml|json)$/.test(name));

  it('holds the demo scenarios', () => {
    expect(files).toEqual(
      expect.arrayContaining(['demo.yaml', 'researcher.yaml', 'summarizer.yaml', 'analyst.yaml']),
    );
  });

  it.each(files)('%s is a valid scenario', async (name) => {
    const scenario = await loadScenarioFile(path.join(folder, name));
    expect(scenario.rules.length).toBeGreaterThan(0);
  });
});
