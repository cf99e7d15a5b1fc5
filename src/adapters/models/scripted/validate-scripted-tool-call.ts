import type { LanguageModelV3CallOptions, LanguageModelV3FunctionTool } from '@ai-sdk/provider';
import { z } from 'zod';
import { TroupeError } from '../../../core/errors.js';

/** Where a scripted call comes from, for error messages. */
export interface ScriptLocation {
  scenario: string;
  rule: string;
  step: number;
}

/*
 * Compiling a JSON schema into zod takes most of a millisecond, and every run builds its tool list afresh, so
 * a cache by object identity only spared the calls within one run. Keyed by the schema's JSON instead (a few
 * microseconds), the handful of tool schemas a deployment has are compiled once per process. Bounded: a
 * process that met unusually many schemas starts over rather than grow.
 */
const COMPILED_LIMIT = 500;
const byObject = new WeakMap<object, z.ZodType | null>();
const byJson = new Map<string, z.ZodType | null>();

function compile(schema: LanguageModelV3FunctionTool['inputSchema']): z.ZodType | null {
  if (typeof schema !== 'object' || schema === null) return null;
  const same = byObject.get(schema);
  if (same !== undefined) return same;
  const json = JSON.stringify(schema);
  const known = byJson.get(json);
  if (known !== undefined) {
    byObject.set(schema, known);
    return known;
  }
  let zodSchema: z.ZodType | null;
  try {
    zodSchema = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
  } catch {
    // A schema zod cannot express is the tool's problem, not the scenario's; the tool validates its own input
    // before executing, so the call is let through rather than failing every run that offers the tool.
    zodSchema = null;
  }
  if (byJson.size >= COMPILED_LIMIT) byJson.clear();
  byJson.set(json, zodSchema);
  byObject.set(schema, zodSchema);
  return zodSchema;
}

function where(location: ScriptLocation, toolName: string): string {
  return `Scenario "${location.scenario}", rule "${location.rule}", step ${location.step + 1}, tool "${toolName}"`;
}

/**
 * A scripted tool call must be one a real model could have made: the tool is offered in this call and the
 * arguments satisfy its JSON schema. Otherwise the scenario is wrong, and it says so instead of passing the
 * bad call on to the agent loop.
 */
export function validateScriptedToolCall(
  tools: LanguageModelV3CallOptions['tools'],
  toolName: string,
  args: unknown,
  location: ScriptLocation,
  unoffered = false,
): void {
  const functionTools = (tools ?? []).filter((t): t is LanguageModelV3FunctionTool => t.type === 'function');
  const tool = functionTools.find((t) => t.name === toolName);
  const details = {
    scenario: location.scenario,
    rule: location.rule,
    step: location.step + 1,
    tool: toolName,
  };
  if (unoffered) {
    if (!tool) return;
    throw new TroupeError(
      'scenario_invalid',
      `${where(location, toolName)}: the call is marked \`unoffered\` but the tool is offered to the model in this call`,
      { details },
    );
  }
  if (!tool) {
    const offered = functionTools.map((t) => t.name);
    throw new TroupeError(
      'scenario_invalid',
      `${where(location, toolName)}: the tool is not offered to the model in this call ` +
        `(offered: ${offered.length > 0 ? offered.join(', ') : 'no tools'})`,
      { details: { ...details, offered } },
    );
  }
  const schema = compile(tool.inputSchema);
  if (!schema) return;
  const result = schema.safeParse(args);
  if (!result.success) {
    const issues = result.error.issues.map((issue) => {
      const path = issue.path.length > 0 ? issue.path.map(String).join('.') : '(args)';
      return `${path}: ${issue.message}`;
    });
    throw new TroupeError(
      'scenario_invalid',
      `${where(location, toolName)}: arguments do not match the tool's input schema: ${issues.join('; ')}`,
      { details: { ...details, args, issues } },
    );
  }
}
