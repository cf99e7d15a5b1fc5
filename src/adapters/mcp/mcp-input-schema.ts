import { z } from 'zod';

/**
 * The MCP tool's JSON schema as zod, so the runtime validates arguments before they reach the server and
 * shows the model the same schema. A schema zod cannot express falls back to "any object": the server
 * still validates its own input, and one odd tool must not take the others down with it.
 */
export function mcpInputSchema(jsonSchema: unknown): z.ZodType<Record<string, unknown>> {
  if (typeof jsonSchema === 'object' && jsonSchema !== null && !Array.isArray(jsonSchema)) {
    try {
      const converted = z.fromJSONSchema(jsonSchema as Parameters<typeof z.fromJSONSchema>[0]);
      // Models only take object-shaped tool inputs; anything else is not worth the risk.
      if (converted instanceof z.ZodObject) return converted;
    } catch {
      // fall through to the permissive schema
    }
  }
  return z.looseObject({});
}
