import type { Json, JsonSchema } from './openapi-operation.js';

function schemaType(schema: JsonSchema | undefined): string | undefined {
  if (!schema) return undefined;
  if (Array.isArray(schema.type)) return schema.type.find((type) => type !== 'null');
  if (schema.type) return schema.type;
  const first = schema.anyOf?.[0] ?? schema.oneOf?.[0];
  return first ? schemaType(first) : undefined;
}

/** A plausible valid value (best effort: patterns are not solved). */
export function sampleFromSchema(schema: JsonSchema | undefined, depth = 0): Json {
  if (!schema || depth > 4) return null;
  if (schema.enum && schema.enum.length > 0) return schema.enum[0] ?? null;
  switch (schemaType(schema) ?? 'unknown') {
    case 'string':
      return 'sample'.padEnd(schema.minLength ?? 0, 'x');
    case 'integer':
    case 'number':
      return schema.minimum ?? 1;
    case 'boolean':
      return false;
    case 'array':
      return [];
    case 'object': {
      const value: Record<string, Json> = {};
      for (const name of schema.required ?? [])
        value[name] = sampleFromSchema(schema.properties?.[name], depth + 1);
      return value;
    }
    default:
      return 'sample';
  }
}

/** Values of the wrong type for a property of this schema. */
export function wrongValuesFor(schema: JsonSchema | undefined): [string, Json][] {
  const type = schemaType(schema);
  const values: [string, Json][] = [
    ['null', null],
    ['object', { nested: { deeper: [1, 2, 3] } }],
    ['array', [1, 'two', null]],
  ];
  if (type !== 'string') values.push(['string', 'not the right type']);
  if (type !== 'number' && type !== 'integer') values.push(['number', 12345.678]);
  if (type !== 'boolean') values.push(['boolean', true]);
  if (type === 'string')
    values.push(
      ['huge string', 'z'.repeat(300_000)],
      ['control chars', '\u0000\u0007\u001b[31m'],
      ['lone surrogate', '\ud800'],
    );
  if (type === 'integer' || type === 'number')
    values.push(['NaN-like', 'NaN'], ['huge number', 1e308], ['negative', -1], ['fraction', 0.5]);
  if (schema?.enum) values.push(['not in enum', 'definitely-not-an-option']);
  return values;
}
