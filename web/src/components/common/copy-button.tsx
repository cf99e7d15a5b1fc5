import { useState } from 'react';

/** Copies `value` to the clipboard; says "Copied" (politely, to screen readers too) once it did. */
export function CopyButton({ value, label }: { value: string; label: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setState('copied');
    } catch {
      setState('failed');
    }
  };
  return (
    <>
      <button
        type="button"
        className="small copy-button"
        onClick={() => void copy()}
        aria-label={`Copy ${label}`}
      >
        {state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed' : 'Copy'}
      </button>
      <span className="visually-hidden" role="status">
        {state === 'copied' ? `${label} copied` : state === 'failed' ? `Could not copy the ${label}` : ''}
      </span>
    </>
  );
}
