import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';
import { TroupeError } from '../../../core/errors.js';
import { scenarioSchema, type Scenario } from './scenario-schema.js';

function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const where = issue.path.length > 0 ? issue.path.map(String).join('.') : '(file)';
      return `${where}: ${issue.message}`;
    })
    .join('; ');
}

/** Parses and validates a scenario's text; `filePath` decides the syntax (`.json` or YAML) and names the file in errors. */
export function parseScenario(source: string, filePath: string): Scenario {
  let raw: unknown;
  try {
    raw = path.extname(filePath).toLowerCase() === '.json' ? JSON.parse(source) : parseYaml(source);
  } catch (error) {
    throw new TroupeError(
      'scenario_invalid',
      `Scenario file ${filePath} cannot be parsed: ${(error as Error).message}`,
      {
        cause: error,
        details: { file: filePath },
      },
    );
  }
  const result = scenarioSchema.safeParse(raw);
  if (!result.success) {
    throw new TroupeError(
      'scenario_invalid',
      `Scenario file ${filePath} is invalid: ${describeIssues(result.error)}`,
      {
        details: {
          file: filePath,
          issues: result.error.issues.map((i) => ({ path: i.path.map(String), message: i.message })),
        },
      },
    );
  }
  return result.data;
}

/** Reads, parses and validates one scenario file. Throws `scenario_invalid` (or `model_not_found` if it is gone). */
export async function loadScenarioFile(filePath: string): Promise<Scenario> {
  let source: string;
  try {
    source = await readFile(filePath, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new TroupeError('model_not_found', `Scenario file ${filePath} does not exist`, { cause: error });
    }
    throw error;
  }
  return parseScenario(source, filePath);
}
