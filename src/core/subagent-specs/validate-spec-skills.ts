import { skillNameProblem } from '../skills/skill-name.js';
import type { BuildReportEntry } from './build-report-entry.js';

/**
 * The `skills` field of an inline spec: a list of skill names. A bad entry drops that entry only, a
 * non-list drops the field; the spec itself always survives (skills add instructions, they are not needed
 * to run). Whether a name exists and is visible is decided per caller, in the build report and at run time.
 */
export function validateSpecSkills(
  raw: unknown,
  report: (value: unknown, message: string) => BuildReportEntry,
): { names: string[] | undefined; entries: BuildReportEntry[] } {
  if (raw === undefined) return { names: undefined, entries: [] };
  if (!Array.isArray(raw))
    return {
      names: undefined,
      entries: [report(raw, '"skills" must be an array of skill names; it is ignored')],
    };
  const names: string[] = [];
  const entries: BuildReportEntry[] = [];
  for (const value of raw as unknown[]) {
    const problem = typeof value === 'string' ? skillNameProblem(value) : 'not a string';
    if (problem !== undefined)
      entries.push(report(value, `skill ${JSON.stringify(value)} is dropped: ${problem}`));
    else if (!names.includes(value as string)) names.push(value as string);
  }
  return { names, entries };
}
