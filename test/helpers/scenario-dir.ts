import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse, stringify } from 'yaml';

const REPO_SCENARIOS = path.resolve(import.meta.dirname, '../../scenarios');

/**
 * A temporary copy of the shipped scenarios (demo "team", researcher, summarizer…), each passed through
 * `transform` with its file name, so a test changes the scripted model's behaviour without touching the
 * shipped files.
 */
export function copyScenarios(transform: (file: string, scenario: unknown) => unknown): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'troupe-scenarios-'));
  for (const file of readdirSync(REPO_SCENARIOS)) {
    if (!/\.ya?ml$/.test(file)) continue;
    const scenario = parse(readFileSync(path.join(REPO_SCENARIOS, file), 'utf8')) as unknown;
    writeFileSync(path.join(dir, file), stringify(transform(file, scenario)));
  }
  return dir;
}

/** `scenario` with `rule` tried before its own rules. */
export function withRuleFirst(scenario: unknown, rule: Record<string, unknown>): unknown {
  const { rules, ...rest } = scenario as { rules: unknown[] };
  return { ...rest, rules: [rule, ...rules] };
}
