import type { z } from 'zod';
import { TroupeError } from './errors.js';

export interface ValidationIssue {
  path: string;
  message: string;
  code: string;
}

/**
 * A zod failure as a `validation_failed` error: the message names every problem (clients often show
 * only the message) and `details.issues` keeps them machine-readable. `where` prefixes the paths so a
 * client can tell a bad body field from a bad query parameter.
 */
export function toValidationError(error: z.ZodError, where?: string): TroupeError {
  const issues: ValidationIssue[] = error.issues.map((issue) => {
    const segments = issue.path.map((segment) => String(segment));
    const path = [where, ...segments].filter((part) => part !== undefined && part !== '').join('.');
    return { path: path || '(root)', message: issue.message, code: issue.code };
  });
  return validationFailed(issues);
}

/** `validation_failed` naming every issue in its message and keeping them in `details.issues`. */
export function validationFailed(issues: ValidationIssue[]): TroupeError {
  const summary = issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ');
  return new TroupeError('validation_failed', `Invalid input: ${summary}`, { details: { issues } });
}

/** Parses or throws `validation_failed`; for services that take input from places other than HTTP. */
export function parseOrThrow<TSchema extends z.ZodType>(
  schema: TSchema,
  value: unknown,
  where?: string,
): z.output<TSchema> {
  const result = schema.safeParse(value);
  if (!result.success) throw toValidationError(result.error, where);
  return result.data;
}
