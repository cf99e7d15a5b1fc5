/** The parts of an OpenAPI document the malformed-input sweep reads. */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export interface JsonSchema {
  type?: string | string[];
  enum?: Json[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  minLength?: number;
  minimum?: number;
  pattern?: string;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
}

export interface OperationParameter {
  name: string;
  in: 'path' | 'query';
  schema?: JsonSchema;
}

export interface OpenApiOperation {
  parameters?: OperationParameter[];
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
  security?: unknown[];
}
