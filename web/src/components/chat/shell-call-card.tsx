import { parseShellResult, shellCommand } from '../../lib/shell-result.ts';
import { prettyJson } from '../../lib/text.ts';
import type { ToolItem } from '../../lib/transcript-items.ts';
import { CopyButton } from '../common/copy-button.tsx';
import { RejectionNote, stateLabel, UnknownOutcomeNote, type ToolState } from './tool-state.tsx';

/**
 * An `execute` call as a terminal would show it: `$ command`, then what it printed (stdout, then stderr in
 * its own colour) and how it ended. The command can be copied; a rejected command says so, neutrally.
 */
export function ShellCallCard({ item, state }: { item: ToolItem; state: ToolState }) {
  const command = shellCommand(item.args);
  const result = item.result === undefined ? undefined : parseShellResult(item.result.output);
  const failed = result ? result.exitCode !== 0 : state === 'error';
  return (
    <div
      className={`shell-card tool-${state}${failed ? ' shell-failed' : ''}`}
      role="group"
      aria-label={`Tool call ${item.name}`}
      data-tool={item.name}
      data-state={state}
    >
      <div className="shell-head">
        <span className="muted small">Shell</span>
        <span className={`tool-state tool-state-${state}`}>{stateLabel(item, state)}</span>
        <CopyButton value={command} label="command" />
      </div>
      <pre className="shell-block" tabIndex={0}>
        <code>
          <span className="shell-prompt" aria-hidden="true">
            ${' '}
          </span>
          {command}
          {result?.stdout ? `\n${result.stdout.replace(/\n$/, '')}` : ''}
          {result?.stderr ? (
            <span className="shell-stderr">{`\n${result.stderr.replace(/\n$/, '')}`}</span>
          ) : null}
        </code>
      </pre>
      {result ? (
        <p className={`shell-outcome${result.exitCode === 0 ? '' : ' shell-outcome-bad'}`}>
          {result.outcome}
        </p>
      ) : null}
      {state === 'rejected' ? <RejectionNote item={item} /> : null}
      {state === 'unknown' ? <UnknownOutcomeNote /> : null}
      {item.result !== undefined && !result && state !== 'rejected' ? (
        <pre className="shell-error" tabIndex={0}>
          {prettyJson(item.result.output)}
        </pre>
      ) : null}
    </div>
  );
}
