import { isDrop } from '../core/subagent-specs/build-report-entry.js';
import type { BuildReport } from '../runtime/build-report/compute-build-report.js';

function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].map((text) => `  ${text}`);
}

const oneLine = (text: string) => text.replace(/\s+/g, ' ');

/** The report as a terminal table: what resolves, then every drop and warning with its code. */
export function formatBuildReport(title: string, report: BuildReport): string {
  const lines = [title, '', `Parent tools: ${report.parent_tools.join(', ') || '(none)'}`, '', 'Subagents:'];
  lines.push(
    ...table(
      ['NAME', 'SOURCE', 'MODEL', 'TOOLS'],
      report.subagents.map((subagent) => [
        subagent.name,
        subagent.source,
        subagent.model,
        subagent.tools.join(', ') || '(none)',
      ]),
    ),
  );
  lines.push('');
  if (report.report.length === 0) {
    lines.push('No problems: every spec resolved.');
    return lines.join('\n');
  }
  lines.push('Report:');
  lines.push(
    ...table(
      ['SPEC', 'NAME', 'CODE', 'KIND', 'VALUE', 'MESSAGE'],
      report.report.map((entry) => [
        entry.spec_index === null ? '-' : `#${entry.spec_index}`,
        entry.spec_name ?? '-',
        entry.code,
        isDrop(entry) ? 'dropped' : 'warning',
        oneLine(entry.value),
        oneLine(entry.message),
      ]),
    ),
  );
  const drops = report.report.filter(isDrop).length;
  const warnings = report.report.length - drops;
  lines.push('', `${drops} dropped, ${warnings} warning${warnings === 1 ? '' : 's'}.`);
  return lines.join('\n');
}
