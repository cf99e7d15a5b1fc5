import { useEffect, useId, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import type { ArtifactView, Run } from '../../api/types.ts';
import type { SubagentRuns } from '../../hooks/use-subagent-runs.ts';
import { panelTotals } from '../../lib/panel-groups.ts';
import { ArtifactsPanel } from './artifacts-panel.tsx';
import { hasStatusPanel, StatusPanel } from './status-panel.tsx';

export interface SidePanelsProps {
  conversationId: string;
  panel: SubagentRuns;
  runs?: readonly Run[];
  artifacts: readonly ArtifactView[];
  artifactsError: unknown;
}

type Sheet = 'files' | 'subagents';

/**
 * The conversation's third column: its files (artifacts) and its subagent and delegation runs. Wide
 * enough (1200 px and up), both sit beside the transcript; narrower, they are sheets opened from "Files (n)"
 * and "Subagents (n)" in the chat's toolbar row, each scrolling on its own to its last control. A
 * conversation with neither has no column and no buttons.
 */
export function SidePanels({ conversationId, panel, runs, artifacts, artifactsError }: SidePanelsProps) {
  const [sheet, setSheet] = useState<Sheet | null>(null);
  const filesId = useId();
  const subagentsId = useId();
  const ids: Record<Sheet, string> = { files: filesId, subagents: subagentsId };
  const toggles = { files: useRef<HTMLButtonElement>(null), subagents: useRef<HTMLButtonElement>(null) };
  const root = useRef<HTMLDivElement>(null);
  const withStatus = hasStatusPanel(panel);
  const withFiles = artifacts.length > 0 || Boolean(artifactsError);
  const totals = panelTotals(panel.entries);

  // An opened sheet takes the focus on its Close button, so the keyboard lands inside it.
  useEffect(() => {
    if (sheet === null) return;
    const id = sheet === 'files' ? filesId : subagentsId;
    const close = root.current?.querySelector<HTMLElement>(`#${CSS.escape(id)} .sheet-close`);
    // Only a sheet (narrow screens): beside the transcript the panels take no focus of their own.
    if (close && close.offsetParent !== null) close.focus();
  }, [sheet, filesId, subagentsId]);

  if (!withStatus && !withFiles) return null;

  const shut = () => {
    const open = sheet;
    setSheet(null);
    if (open) toggles[open].current?.focus();
  };
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'Escape' && sheet !== null) shut();
  };
  const toggle = (which: Sheet) => setSheet((current) => (current === which ? null : which));
  const buttons: [Sheet, ReactNode][] = [];
  if (withFiles) buttons.push(['files', `Files (${artifacts.length})`]);
  if (withStatus) {
    buttons.push([
      'subagents',
      <>
        Subagents ({panel.entries.length}){/* Left out on a phone, where the toolbar row is short of room. */}
        {totals.active > 0 ? <span className="toggle-extra"> · {totals.active} active</span> : null}
      </>,
    ]);
  }

  return (
    <div ref={root} className={`side-panels${sheet ? ` sheet-${sheet}` : ''}`} onKeyDown={onKeyDown}>
      <div className="side-toggles" role="group" aria-label="Side panels">
        {buttons.map(([which, label]) => (
          <button
            key={which}
            type="button"
            ref={toggles[which]}
            className="sheet-toggle"
            aria-expanded={sheet === which}
            aria-controls={ids[which]}
            onClick={() => toggle(which)}
          >
            {label}
          </button>
        ))}
      </div>
      {withFiles ? (
        <ArtifactsPanel
          id={ids.files}
          conversationId={conversationId}
          artifacts={artifacts}
          error={artifactsError}
          sheetOpen={sheet === 'files'}
          onClose={shut}
        />
      ) : null}
      <StatusPanel
        id={ids.subagents}
        panel={panel}
        runs={runs}
        sheetOpen={sheet === 'subagents'}
        onClose={shut}
      />
    </div>
  );
}
