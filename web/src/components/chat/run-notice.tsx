import type { NoticeItem } from '../../lib/transcript-items.ts';

/** How a run ended (failed, cancelled, interrupted) or an error it reported, with the code. */
export function RunNotice({ item }: { item: NoticeItem }) {
  return (
    <p className={`run-notice tone-${item.tone}`} role={item.tone === 'error' ? 'alert' : 'status'}>
      {item.code ? (
        <>
          <code className="error-code">{item.code}</code>{' '}
        </>
      ) : null}
      {item.text}
    </p>
  );
}
