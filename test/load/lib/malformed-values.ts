/** The catalogue of bad path ids, query values and JSON texts the sweep sends, each with its label. */

export const BAD_IDS: [string, string][] = [
  ['too long id', 'x'.repeat(201)],
  ['very long id', 'y'.repeat(6000)],
  ['NUL', '%00'],
  ['path traversal', '..%2F..%2Fetc%2Fpasswd'],
  ['SQL', "'%20OR%201%3D1%20--"],
  ['emoji', '%F0%9F%92%A9'],
  ['broken percent-encoding', '%ZZ%E0%A4%A'],
  ['lone surrogate', '%ED%A0%80'],
  ['space', '%20'],
  ['null word', 'null'],
  ['negative number', '-1'],
];

export const BAD_QUERY_VALUES: [string, string][] = [
  ['word', 'abc'],
  ['negative', '-1'],
  ['huge', '99999999999999999999999'],
  ['exponent', '1e999'],
  ['fraction', '1.5'],
  ['empty', ''],
  ['broken percent-encoding', '%ZZ'],
  ['NUL', '%00'],
  ['long', 'q'.repeat(5000)],
];

export const MALFORMED_JSON: [string, string][] = [
  ['truncated object', '{'],
  ['truncated member', '{"a":'],
  ['bare word', 'nul'],
  ['trailing comma', '{"a":1,}'],
  ['single quotes', "{'a':1}"],
  ['empty', ''],
  ['whitespace', '   '],
  ['two documents', '{}{}'],
];

export function nestedArrays(depth: number): string {
  return '['.repeat(depth) + ']'.repeat(depth);
}
