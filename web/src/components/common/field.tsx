import type { ReactNode } from 'react';

/** What the control of a `<Field>` spreads on itself so its label, hint and error are tied to it. */
export interface FieldControl {
  id: string;
  'aria-describedby'?: string;
  'aria-invalid'?: true;
}

export interface FieldProps {
  /** The control's id; the hint and the error take ids derived from it. */
  id: string;
  label: ReactNode;
  /** A line under the control saying what to enter (read out with the control). */
  hint?: ReactNode;
  /** What is wrong with the value; marks the control invalid. */
  error?: ReactNode;
  className?: string;
  children: (control: FieldControl) => ReactNode;
}

/**
 * A form field: label, control, hint and error, tied together for assistive technology (the label's `for`,
 * the control's `aria-describedby` and `aria-invalid`). The control is rendered by `children` with the
 * attributes to spread on it, so any input, select or textarea fits.
 */
export function Field({ id, label, hint, error, className = 'field', children }: FieldProps) {
  const hintId = `${id}-help`;
  const errorId = `${id}-error`;
  const hasError = error !== undefined && error !== null && error !== false;
  const describedBy = [hint ? hintId : null, hasError ? errorId : null].filter(Boolean).join(' ');
  return (
    <div className={className}>
      <label htmlFor={id}>{label}</label>
      {children({
        id,
        ...(describedBy ? { 'aria-describedby': describedBy } : {}),
        ...(hasError ? { 'aria-invalid': true as const } : {}),
      })}
      {hint ? (
        <small id={hintId} className="help">
          {hint}
        </small>
      ) : null}
      {hasError ? (
        <small id={errorId} className="field-error" role="alert">
          {error}
        </small>
      ) : null}
    </div>
  );
}
