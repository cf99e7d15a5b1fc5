import { describe, expect, it } from 'vitest';
import { isTroupeError } from '../../core/errors.js';
import { cursorPage } from './cursor-page.js';

const items = ['a', 'b', 'c', 'd', 'e'].map((id) => ({ id }));
const ids = (page: { data: { id: string }[] }) => page.data.map((item) => item.id);

describe('cursorPage', () => {
  it('pages newest first by default, each page after the last id of the one before', () => {
    const first = cursorPage(items, { limit: 2 });
    expect(first).toMatchObject({ object: 'list', first_id: 'e', last_id: 'd', has_more: true });
    expect(ids(first)).toEqual(['e', 'd']);
    const second = cursorPage(items, { limit: 2, after: 'd' });
    expect(ids(second)).toEqual(['c', 'b']);
    const last = cursorPage(items, { limit: 2, after: 'b' });
    expect(last).toMatchObject({ data: [{ id: 'a' }], has_more: false, last_id: 'a' });
  });

  it('pages oldest first with order asc; an empty list has null ids', () => {
    expect(ids(cursorPage(items, { order: 'asc', after: 'c' }))).toEqual(['d', 'e']);
    expect(cursorPage([], {})).toEqual({
      object: 'list',
      data: [],
      first_id: null,
      last_id: null,
      has_more: false,
    });
  });

  it('refuses a cursor that names nothing in the list, naming the parameter', () => {
    let thrown: unknown;
    try {
      cursorPage(items, { after: 'zzz' });
    } catch (error) {
      thrown = error;
    }
    expect(isTroupeError(thrown, 'validation_failed')).toBe(true);
    expect((thrown as { details?: unknown }).details).toEqual({ param: 'after' });
  });
});
