import { expect } from 'vitest';

export interface ErrorJson {
  error: { code: string; message: string; details?: Record<string, unknown> };
}

/** Asserts the status, the error code and the wire shape (`{error: {code, message}}`, no stack). */
export async function expectError(response: Response, status: number, code: string): Promise<ErrorJson> {
  const body = (await response.json()) as ErrorJson;
  expect({ status: response.status, code: body.error.code }).toEqual({ status, code });
  expect(typeof body.error.message).toBe('string');
  expect(Object.keys(body)).toEqual(['error']);
  expect(JSON.stringify(body)).not.toMatch(/\bat .*\.[jt]s:\d+/);
  return body;
}

export async function json<T>(response: Response, status: number): Promise<T> {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  return JSON.parse(text) as T;
}
