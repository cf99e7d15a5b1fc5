import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ALWAYS_DISABLED_FOR_SUBAGENTS } from '../subagents/subagent-tool-policy.js';
import { buildSubagentSpecs } from './build-subagent-specs.js';
import { dropsSpec } from './build-report-entry.js';
import { generalPurposeSubagent } from './general-purpose-subagent.js';
import { RESERVED_NAMES, isReservedTool } from './reserved-names.js';

const NEVER_GRANTED = [...RESERVED_NAMES, ...ALWAYS_DISABLED_FOR_SUBAGENTS];
const ORDINARY_TOOLS = [
  'read_file',
  'write_file',
  'edit_file',
  'ls',
  'glob',
  'grep',
  'execute',
  'mcp__docs__search',
  'mcp__docs__fetch',
  'mcp__git__log',
];

const toolName = fc.oneof(
  fc.constantFrom(...ORDINARY_TOOLS, ...NEVER_GRANTED),
  fc.string({ maxLength: 12 }),
  fc.constantFrom('*', 'mcp__*', 'mcp__docs__*', 'subagent_*', 'read_*', 'mcp__*__log', ''),
);
const name = fc.oneof(
  fc.constantFrom('scanner', 'writer', 'general-purpose', 'helper', 'a b', 'x<y', "it's", ...RESERVED_NAMES),
  fc.string({ maxLength: 10 }),
);
const specLike = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record(
      {
        name: fc.oneof(name, fc.anything()),
        description: fc.oneof(fc.string({ maxLength: 8 }), fc.anything()),
        system_prompt: fc.oneof(fc.string({ maxLength: 8 }), fc.anything()),
        tools: fc.oneof(fc.array(fc.oneof(toolName, fc.anything()), { maxLength: 6 }), fc.anything()),
        model: fc.oneof(fc.constantFrom('openai:gpt-4o', ''), fc.anything()),
        extra: fc.anything(),
      },
      { requiredKeys: [] },
    ),
  },
  { weight: 1, arbitrary: fc.anything() },
);
const parentTools = fc.uniqueArray(
  fc.oneof(fc.constantFrom(...ORDINARY_TOOLS, ...NEVER_GRANTED), fc.string({ maxLength: 8 })),
  { maxLength: 14 },
);

const input = fc.record({
  specs: fc.array(specLike, { maxLength: 8 }),
  parentTools,
  withBuiltin: fc.boolean(),
  disabledTools: fc.subarray(['write_file', 'edit_file', 'execute']),
  registeredSlugs: fc.subarray(['helper', 'scanner', 'writer']),
});

type Sample = typeof input extends fc.Arbitrary<infer T> ? T : never;

function run(sample: Sample) {
  const builtins = sample.withBuiltin
    ? [
        generalPurposeSubagent({
          parentTools: sample.parentTools,
          parentModel: 'scripted:parent',
          disabledTools: sample.disabledTools,
        }),
      ]
    : [];
  return buildSubagentSpecs({
    specs: sample.specs,
    parentTools: sample.parentTools,
    parentModel: 'scripted:parent',
    builtins,
    disabledTools: sample.disabledTools,
    registeredSlugs: sample.registeredSlugs,
  });
}

describe('buildSubagentSpecs properties', () => {
  it('never throws', () => {
    fc.assert(
      fc.property(input, (sample) => void run(sample)),
      { numRuns: 500 },
    );
  });

  it('never returns a reserved tool, a disabled one, or one outside the parent set', () => {
    fc.assert(
      fc.property(input, (sample) => {
        for (const subagent of run(sample).subagents) {
          for (const tool of subagent.tools) {
            expect(isReservedTool(tool)).toBe(false);
            expect(sample.parentTools).toContain(tool);
            expect(sample.disabledTools).not.toContain(tool);
          }
        }
      }),
      { numRuns: 500 },
    );
  });

  it('resolves or reports every input spec, never both dropped and resolved', () => {
    fc.assert(
      fc.property(input, (sample) => {
        const result = run(sample);
        const resolved = new Set(
          result.subagents.flatMap((subagent) => (subagent.spec_index === null ? [] : [subagent.spec_index])),
        );
        const dropped = new Set(result.report.filter(dropsSpec).map((entry) => entry.spec_index));
        sample.specs.forEach((_spec, index) => {
          expect(resolved.has(index) !== dropped.has(index)).toBe(true);
        });
      }),
      { numRuns: 500 },
    );
  });

  it('returns unique names, built-ins first, every resolved one with at least one tool', () => {
    fc.assert(
      fc.property(input, (sample) => {
        const { subagents } = run(sample);
        const names = subagents.map((subagent) => subagent.name);
        expect(new Set(names).size).toBe(names.length);
        if (sample.withBuiltin) expect(subagents[0]?.source).toBe('builtin');
        for (const subagent of subagents.filter((entry) => entry.source === 'inline')) {
          expect(subagent.tools.length).toBeGreaterThan(0);
          expect(subagent.model.length).toBeGreaterThan(0);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('renders every report value as a string', () => {
    fc.assert(
      fc.property(input, (sample) => {
        for (const entry of run(sample).report) expect(typeof entry.value).toBe('string');
      }),
      { numRuns: 300 },
    );
  });
});
