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

/** `scenario` with every step of its rule `name` given `delayMs` (for a step that streams, its whole span). */
export function withRuleDelay(scenario: unknown, name: string, delayMs: number): unknown {
  const { rules, ...rest } = scenario as { rules: { name?: string; steps: Record<string, unknown>[] }[] };
  const found = rules.some((rule) => rule.name === name);
  if (!found) throw new Error(`no rule ${name} in the scenario`);
  return {
    ...rest,
    rules: rules.map((rule) =>
      rule.name === name
        ? { ...rule, steps: rule.steps.map((step) => ({ ...step, delay_ms: delayMs })) }
        : rule,
    ),
  };
}
