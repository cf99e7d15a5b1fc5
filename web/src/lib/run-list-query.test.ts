import { describe, expect, it } from 'vitest';
import { runListSearch } from '../api/troupe-api.ts';
import {
  activeFilterCount,
  EMPTY_FILTERS,
  filtersFromSearch,
  queryFromFilters,
  searchFromFilters,
} from './run-list-query.ts';

describe('runs explorer filters in the address', () => {
  it('round-trips through the query string, dropping values the server would refuse', () => {
    const search =
      '?status=failed,running,bogus&kind=delegation&agent=researcher&q=%20notes%20&from=2030-01-01T00:00:00.000Z&to=nonsense';
    const filters = filtersFromSearch(search);
    expect(filters).toEqual({
      ...EMPTY_FILTERS,
      status: ['failed', 'running'],
      kind: ['delegation'],
      agent: 'researcher',
      q: 'notes',
      from: '2030-01-01T00:00:00.000Z',
    });
    expect(searchFromFilters(filters)).toBe(
      '?status=failed%2Crunning&kind=delegation&agent=researcher&from=2030-01-01T00%3A00%3A00.000Z&q=notes',
    );
    expect(filtersFromSearch(searchFromFilters(filters))).toEqual(filters);
    expect(searchFromFilters(EMPTY_FILTERS)).toBe('');
    expect(activeFilterCount(filters)).toBe(5);
  });

  it('keeps the verdict filter in the address and sends it to the API', () => {
    const filters = filtersFromSearch('?verdict=needs_revision,failed,unverified,bogus');
    expect(filters).toEqual({ ...EMPTY_FILTERS, verdict: ['needs_revision', 'failed'] });
    expect(searchFromFilters(filters)).toBe('?verdict=needs_revision%2Cfailed');
    expect(activeFilterCount(filters)).toBe(1);
    expect(queryFromFilters(filters)).toEqual({ limit: 25, verdict: ['needs_revision', 'failed'] });
    expect(runListSearch(queryFromFilters(filters))).toBe('?limit=25&verdict=needs_revision%2Cfailed');
  });

  it('turns filters into the API query, with the cursor of the next page', () => {
    expect(queryFromFilters({ ...EMPTY_FILTERS, status: ['failed'], q: 'x' }, 'abc', 10)).toEqual({
      limit: 10,
      status: ['failed'],
      q: 'x',
      cursor: 'abc',
    });
  });
});
