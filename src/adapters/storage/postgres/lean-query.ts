import pg from 'pg';

/** A column as node-postgres hands a RowDescription to its query. */
interface FieldDescription {
  name: string;
  dataTypeID: number;
  format: string;
}

type Parser = (raw: string) => unknown;

interface TypeSource {
  getTypeParser(oid: number, format: string): Parser;
}

/** The parts of node-postgres's Query and Result this subclass builds on (not in its type declarations). */
interface QueryInternals {
  name?: string;
  values?: unknown[];
  callback?: (error: Error | null, result: pg.QueryResult) => void;
  _result: { fields: FieldDescription[]; rows: unknown[]; _types?: TypeSource };
  _canceledDueToError: unknown;
  _checkForMultirow(): void;
}

/** node-postgres's own row handling, for what this class leaves to it. */
const base = pg.Query.prototype as unknown as {
  handleRowDescription(this: unknown, message: unknown): void;
  handleDataRow(this: unknown, message: unknown): void;
};

/** How a statement's rows are read: its columns' names and parsers, with the description they came from. */
interface RowShape {
  fields: FieldDescription[];
  names: string[];
  parsers: Parser[];
}

/**
 * Row shapes per type source, then per statement name. node-postgres gives each client (one session) a type
 * source of its own, so a shape is kept per session and goes with its client.
 */
const shapes = new WeakMap<TypeSource, Map<string, RowShape>>();
const MAX_SHAPES = 2_000;

function sameDescription(a: FieldDescription[], b: FieldDescription[]): boolean {
  if (a.length !== b.length) return false;
  return a.every((x, index) => {
    const y = b[index];
    return x.name === y?.name && x.dataTypeID === y.dataTypeID && x.format === y.format;
  });
}

function shapeOf(fields: FieldDescription[], types: TypeSource): RowShape {
  return {
    fields,
    names: fields.map((field) => field.name),
    parsers: fields.map((field) => types.getTypeParser(field.dataTypeID, field.format || 'text')),
  };
}

/** The shape of a described answer; a named statement's is kept for the client's next executions. */
function keptShape(fields: FieldDescription[], types: TypeSource, name: string | undefined): RowShape {
  if (name === undefined) return shapeOf(fields, types);
  let byName = shapes.get(types);
  if (byName === undefined) shapes.set(types, (byName = new Map<string, RowShape>()));
  const known = byName.get(name);
  if (known !== undefined && sameDescription(known.fields, fields)) return known;
  if (byName.size >= MAX_SHAPES) byName.clear();
  const shape = shapeOf(fields, types);
  byName.set(name, shape);
  return shape;
}

/**
 * node-postgres's Query with two costs of every statement taken out (docs/scale-out.md, "What scales how"):
 * its constructor copies the config object property by property, and each answer rebuilds the row parsers
 * and a dictionary-mode row template that every row is spread from. A named statement's row shape is kept
 * here instead (checked against each RowDescription, so a changed schema reads right), and rows are plain
 * objects filled in column order, which V8 gives one hidden class. Text-format columns only; anything else
 * (binary columns, a column named `__proto__`) reads through node-postgres's own path.
 */
export class LeanQuery extends pg.Query {
  #shape: RowShape | undefined;

  constructor(
    text: string,
    values: unknown[],
    name: string | undefined,
    callback: (error: Error | null, result: pg.QueryResult) => void,
  ) {
    // A string config is the one node-postgres does not copy.
    super(text);
    const self = this as unknown as QueryInternals;
    self.values = values;
    if (name !== undefined) self.name = name;
    self.callback = callback;
  }

  handleRowDescription(message: { fields: FieldDescription[] }): void {
    const self = this as unknown as QueryInternals;
    const { fields } = message;
    const types = self._result._types;
    const plain = fields.every((field) => field.format !== 'binary' && field.name !== '__proto__');
    if (types === undefined || !plain) {
      this.#shape = undefined;
      base.handleRowDescription.call(this, message);
      return;
    }
    self._checkForMultirow();
    self._result.fields = fields;
    this.#shape = keptShape(fields, types, self.name);
  }

  handleDataRow(message: { fields: (string | null)[] }): void {
    const shape = this.#shape;
    if (shape === undefined) {
      base.handleDataRow.call(this, message);
      return;
    }
    const self = this as unknown as QueryInternals;
    if (self._canceledDueToError) return;
    const { names, parsers } = shape;
    const raw = message.fields;
    const row: Record<string, unknown> = {};
    try {
      names.forEach((column, index) => {
        const value = raw[index];
        row[column] = value === null || value === undefined ? null : (parsers[index] as Parser)(value);
      });
    } catch (error) {
      // As node-postgres does: the statement fails with the parse error once the server is done with it.
      self._canceledDueToError = error;
      return;
    }
    self._result.rows.push(row);
  }
}

/** Runs one statement through `LeanQuery`; resolves as `client.query(config)` does. */
export function runLean(
  client: pg.ClientBase,
  text: string,
  values: unknown[],
  name: string | undefined,
): Promise<pg.QueryResult> {
  return new Promise((resolve, reject) => {
    const query = new LeanQuery(text, values, name, (error, result) =>
      error ? reject(error) : resolve(result),
    );
    // A submittable: node-postgres answers through its callback and returns the query itself.
    void client.query(query as unknown as pg.QueryConfig);
  });
}
