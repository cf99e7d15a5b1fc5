import { TroupeError } from '../../../core/errors.js';

export interface RunListPosition {
  created_at: string;
  id: string;
}

/** Opaque to clients: base64url of `[created_at, id]` of the last row of a page. */
export function encodeRunListCursor(position: RunListPosition): string {
  return Buffer.from(JSON.stringify([position.created_at, position.id]), 'utf8').toString('base64url');
}

/** A cursor this server did not make is a client mistake (`validation_failed`), never a 500. */
export function decodeRunListCursor(cursor: string): RunListPosition {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    parsed = undefined;
  }
  if (
    !Array.isArray(parsed) ||
    parsed.length !== 2 ||
    typeof parsed[0] !== 'string' ||
    typeof parsed[1] !== 'string' ||
    Number.isNaN(Date.parse(parsed[0])) ||
    parsed[1] === '' ||
    parsed[1].length > 200
  ) {
    throw new TroupeError(
      'validation_failed',
      'Invalid input: query.cursor: not a cursor from a previous page',
      {
        details: {
          issues: [{ path: 'query.cursor', message: 'not a cursor from a previous page', code: 'custom' }],
        },
      },
    );
  }
  return { created_at: parsed[0], id: parsed[1] };
}
