import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { DataTable, type DataColumn } from './data-table.tsx';

interface Row {
  id: string;
  name: string;
}
const columns: DataColumn<Row>[] = [
  { header: 'Name', rowHeader: true, cell: (row) => row.name },
  { header: 'Id', cell: (row) => row.id },
  { header: 'Actions', actions: true, className: 'button-row', cell: (row) => `delete ${row.id}` },
];

describe('DataTable', () => {
  it('labels each cell with its column for the phone cards, hides the actions header, names rows', () => {
    const html = renderToStaticMarkup(
      createElement(DataTable<Row>, {
        rows: [{ id: 'a1', name: 'Alpha' }],
        columns,
        rowKey: (row) => row.id,
        caption: 'Things',
        className: 'compact',
        rowProps: (row) => ({ 'data-row-id': row.id }),
      }),
    );
    expect(html).toBe(
      '<table class="data-table card-table compact"><caption class="visually-hidden">Things</caption>' +
        '<thead><tr><th scope="col">Name</th><th scope="col">Id</th>' +
        '<th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>' +
        '<tbody><tr data-row-id="a1"><th scope="row">Alpha</th><td data-label="Id">a1</td>' +
        '<td class="button-row card-actions">delete a1</td></tr></tbody></table>',
    );
  });
});
