/** A plain-text table: the first column left-aligned, the others right-aligned. */
export function formatTable(headers: string[], rows: (string | number)[][]): string {
  const cells = [
    headers,
    ...rows.map((row) => row.map((cell) => (typeof cell === 'number' ? formatNumber(cell) : cell))),
  ];
  const widths = headers.map((_, column) => Math.max(...cells.map((row) => (row[column] ?? '').length)));
  const line = (row: string[]) =>
    row
      .map((cell, column) =>
        column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0),
      )
      .join('  ');
  return [
    line(cells[0] ?? []),
    widths.map((width) => '-'.repeat(width)).join('  '),
    ...cells.slice(1).map(line),
  ].join('\n');
}

export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return '–';
  if (Number.isInteger(value) && Math.abs(value) < 1000) return String(value);
  if (Math.abs(value) >= 1000) return Math.round(value).toLocaleString('en-US');
  if (Math.abs(value) >= 100) return value.toFixed(0);
  if (Math.abs(value) >= 10) return value.toFixed(1);
  return value.toFixed(2);
}
