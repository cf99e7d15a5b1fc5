import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createWorkdirTools, SENSITIVE_TOOL_NAMES } from './create-workdir-tools.js';

describe('createWorkdirTools', () => {
  const tools = createWorkdirTools();

  it('returns the six file tools with unique names', () => {
    expect(tools.map((tool) => tool.name)).toEqual([
      'read_file',
      'write_file',
      'edit_file',
      'ls',
      'glob',
      'grep',
    ]);
  });

  it('marks exactly the sensitive ones, in line with SENSITIVE_TOOL_NAMES', () => {
    const names: readonly string[] = SENSITIVE_TOOL_NAMES;
    for (const tool of tools) expect(tool.sensitive === true).toBe(names.includes(tool.name));
    expect(SENSITIVE_TOOL_NAMES).toEqual(['write_file', 'edit_file', 'execute']);
  });

  it('exposes strict JSON schemas with described fields', () => {
    for (const tool of tools) {
      const schema = z.toJSONSchema(tool.inputSchema) as {
        additionalProperties?: unknown;
        properties?: Record<string, { description?: string }>;
      };
      expect(schema.additionalProperties, tool.name).toBe(false);
      for (const [field, property] of Object.entries(schema.properties ?? {})) {
        expect(property.description, `${tool.name}.${field}`).toBeTruthy();
      }
      expect(tool.description.length).toBeGreaterThan(40);
    }
  });
});
