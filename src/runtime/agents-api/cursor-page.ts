import { TroupeError } from '../../core/errors.js';
import type { ApiPage } from './agents-api-objects.js';

export const DEFAULT_PAGE_LIMIT = 20;
export const MAX_PAGE_LIMIT = 100;

export interface PageQuery {
  /** The id of the last object of the previous page. */
  after?: string | undefined;
  limit?: number | undefined;
  /** Defaults to `desc` (newest first), as in OpenAI's API. */
  order?: 'asc' | 'desc' | undefined;
}

/**
 * One page of `items` (given oldest first) as the official SDK pages it: `after` is the id of the last object
 * the client saw, `has_more` says whether to ask again, `last_id` serves the clients that read it instead of
 * the last object's id. An `after` that names nothing in the list is `400 validation_failed` (param `after`),
 * not an empty page, so a client never mistakes a bad cursor for the end.
 */
export function cursorPage<T extends { id: string }>(items: readonly T[], query: PageQuery): ApiPage<T> {
  const limit = query.limit ?? DEFAULT_PAGE_LIMIT;
  const ordered = query.order === 'asc' ? [...items] : [...items].reverse();
  let start = 0;
  if (query.after !== undefined) {
    const index = ordered.findIndex((item) => item.id === query.after);
    if (index < 0) {
      throw new TroupeError('validation_failed', `after: "${query.after}" is not an id of this list`, {
        details: { param: 'after' },
      });
    }
    start = index + 1;
  }
  const data = ordered.slice(start, start + limit);
  return {
    object: 'list',
    data,
    first_id: data[0]?.id ?? null,
    last_id: data.at(-1)?.id ?? null,
    has_more: start + limit < ordered.length,
  };
}
