import { describeError } from '../../api/api-error.ts';

export interface ErrorMessageProps {
  error: unknown;
  /** What was being done, e.g. "Could not save the agent". */
  context?: string;
}

/** An API error with its stable code next to the message. */
export function ErrorMessage({ error, context }: ErrorMessageProps) {
  if (error === undefined || error === null) return null;
  const { code, message } = describeError(error);
  return (
    <p className="error-message" role="alert">
      {context ? <span className="error-context">{context}: </span> : null}
      <code className="error-code">{code}</code> <span>{message}</span>
    </p>
  );
}
