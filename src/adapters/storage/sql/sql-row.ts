/** A boolean column: both engines store it as an integer. */
export type SqlBoolean = 0 | 1;

/** How a JSON column holds a record field: text, null where the field may be null. */
type JsonText<T> = unknown extends T ? string : null extends T ? string | null : string;

/**
 * A table's row derived from its core record (docs/records-and-access.md#records-declared-once): every
 * field of the record is a column of the same name and type, except the `Json` fields (stored as JSON text)
 * and the `Bool` fields (stored as 0/1). Columns the record does not have, or that are stored otherwise,
 * are added by the table type beside it; a field added to a record is a column at once, so the migration
 * must add it too.
 */
export type SqlRow<R, Json extends keyof R = never, Bool extends keyof R = never> = {
  [K in keyof R]-?: K extends Json ? JsonText<R[K]> : K extends Bool ? SqlBoolean : R[K];
};
