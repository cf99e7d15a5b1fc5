import { z } from 'zod';
import { declaredWindowFields } from '../../../core/model-calls/model-windows.js';

/** Placeholders a scenario may use in `text` and in string tool arguments. */
/**
 * `run_id` / `run_ids`: the `run_id` fields of JSON tool results since the last user message (e.g. from
 * `subagent_start`), so a scenario can await or cancel the runs it started. An arg that is exactly
 * `{{run_ids}}` becomes an array.
 */
export const TEMPLATE_VARIABLES = ['input', 'last_tool_result', 'run_id', 'run_ids'] as const;
export type TemplateVariable = (typeof TEMPLATE_VARIABLES)[number];

/** `{{ name }}`, whitespace inside the braces tolerated. */
export const TEMPLATE_PATTERN = /\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g;

function unknownPlaceholders(text: string): string[] {
  const known: readonly string[] = TEMPLATE_VARIABLES;
  return [...text.matchAll(TEMPLATE_PATTERN)].map((m) => m[1] ?? '').filter((name) => !known.includes(name));
}

// Typos in placeholders would otherwise reach the user verbatim; catch them when the file is loaded.
const templateString = z.string().superRefine((text, ctx) => {
  for (const name of unknownPlaceholders(text)) {
    ctx.addIssue({
      code: 'custom',
      message: `unknown placeholder {{${name}}}; known: ${TEMPLATE_VARIABLES.map((v) => `{{${v}}}`).join(', ')}`,
    });
  }
});

type JsonArg = string | number | boolean | null | JsonArg[] | { [key: string]: JsonArg };
const jsonArg: z.ZodType<JsonArg> = z.lazy(() =>
  z.union([
    templateString,
    z.number(),
    z.boolean(),
    z.null(),
    z.array(jsonArg),
    z.record(z.string(), jsonArg),
  ]),
);

const regexSource = z.string().superRefine((source, ctx) => {
  try {
    new RegExp(source);
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: `not a valid regular expression: ${(error as Error).message}` });
  }
});

const matcherSchema = z
  .strictObject({
    /** Case-insensitive substring of the last user message. */
    contains: z.string().min(1).optional(),
    /** JavaScript regular expression tested against the last user message. */
    matches: regexSource.optional(),
  })
  .refine((when) => when.contains !== undefined || when.matches !== undefined, {
    message: '`when` needs `contains` or `matches`',
  });

const toolCallSchema = z.strictObject({
  name: z.string().min(1),
  args: z.record(z.string(), jsonArg).default({}),
  /**
   * Plays a model that calls a tool it was NOT offered (to exercise the runtime's refusal). The tool must
   * then really be absent from the call's offered tools, so the scenario cannot pass by accident.
   */
  unoffered: z.boolean().optional(),
});

const stepSchema = z
  .strictObject({
    text: templateString.optional(),
    tool_calls: z.array(toolCallSchema).min(1).optional(),
    /** Total playback time of the step, spread evenly before each streamed chunk. */
    delay_ms: z.number().int().min(0).max(600_000).optional(),
    /** Characters per text delta. */
    chunk_size: z.number().int().min(1).optional(),
  })
  .refine((step) => step.text !== undefined || step.tool_calls !== undefined, {
    message: 'a step needs `text`, `tool_calls` or both',
  });

const ruleSchema = z.strictObject({
  /** Shown in error messages; defaults to `rules[i]`. */
  name: z.string().min(1).optional(),
  when: matcherSchema.optional(),
  steps: z.array(stepSchema).min(1),
});

export const scenarioSchema = z.strictObject({
  description: z.string().optional(),
  /** The window the scripted model claims, so compaction can be exercised offline (scenarios/README.md). */
  ...declaredWindowFields,
  rules: z.array(ruleSchema).min(1),
});

export type Scenario = z.infer<typeof scenarioSchema>;
export type ScenarioRule = Scenario['rules'][number];
export type ScenarioStep = ScenarioRule['steps'][number];
export type ScenarioToolCall = NonNullable<ScenarioStep['tool_calls']>[number];
export type ScenarioArg = JsonArg;
