import type { HTMLAttributes, ReactNode } from 'react';

export interface DataColumn<Row> {
  /** The column's header, and the cell's label when a phone shows each row as a card. */
  header: string;
  cell: (row: Row) => ReactNode;
  /** An actions column: its header is for screen readers only and its cells carry no card label. */
  actions?: boolean;
  /** The cell names its row (`<th scope="row">`), as a scope in a totals table. */
  rowHeader?: boolean;
  className?: string;
}

export interface DataTableProps<Row> {
  rows: readonly Row[];
  columns: readonly DataColumn<Row>[];
  rowKey: (row: Row) => string;
  /** The table's accessible name: a visually hidden caption, or an `aria-label`. */
  caption?: string;
  label?: string;
  /** Added to `data-table card-table` (e.g. `compact`, a page's own table class). */
  className?: string;
  /** Attributes of a row's `<tr>` (`aria-current`, `data-*`). */
  rowProps?: (row: Row) => HTMLAttributes<HTMLTableRowElement> & Record<`data-${string}`, string | undefined>;
}

/**
 * The console's tables: one header row, one row per record; below ~700 px every row is a card whose cells
 * say their column (the `data-label` the `card-table` styles show), so no page scrolls sideways on a phone.
 */
export function DataTable<Row>({
  rows,
  columns,
  rowKey,
  caption,
  label,
  className,
  rowProps,
}: DataTableProps<Row>) {
  return (
    <table className={`data-table card-table${className ? ` ${className}` : ''}`} aria-label={label}>
      {caption ? <caption className="visually-hidden">{caption}</caption> : null}
      <thead>
        <tr>
          {columns.map((column) => (
            <th scope="col" key={column.header}>
              {column.actions ? <span className="visually-hidden">{column.header}</span> : column.header}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={rowKey(row)} {...rowProps?.(row)}>
            {columns.map((column) =>
              column.rowHeader ? (
                <th scope="row" key={column.header} className={column.className}>
                  {column.cell(row)}
                </th>
              ) : (
                <td
                  key={column.header}
                  data-label={column.actions ? undefined : column.header}
                  className={cellClass(column)}
                >
                  {column.cell(row)}
                </td>
              ),
            )}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function cellClass(column: Pick<DataColumn<never>, 'actions' | 'className'>): string | undefined {
  if (!column.actions) return column.className;
  return column.className ? `${column.className} card-actions` : 'card-actions';
}
