import { useEffect, useState } from 'react';
import { isUnavailable } from '../api/api-error.ts';
import type { AgentConfig } from '../api/types.ts';
import { normaliseBuildReport, type NormalisedReport } from '../lib/build-report.ts';
import { useDebouncedValue } from './use-debounced-value.ts';
import { useSession } from './use-session.ts';

export type BuildReportState =
  | { status: 'idle' }
  | { status: 'loading'; previous: NormalisedReport | null }
  | { status: 'ready'; report: NormalisedReport }
  | { status: 'unavailable' }
  | { status: 'error'; error: unknown };

/** The live build report of an agent config, asked for once the user pauses typing. */
export function useBuildReport(
  config: AgentConfig | null,
  delayMs = 400,
  agentId?: string,
): BuildReportState {
  const { api } = useSession();
  const serialised = config === null ? null : JSON.stringify(config);
  const debounced = useDebouncedValue(serialised, delayMs);
  const [state, setState] = useState<BuildReportState>({ status: 'idle' });

  useEffect(() => {
    if (debounced === null) {
      setState({ status: 'idle' });
      return undefined;
    }
    const controller = new AbortController();
    setState((current) => ({
      status: 'loading',
      previous: current.status === 'ready' ? current.report : null,
    }));
    api.buildReport(JSON.parse(debounced) as AgentConfig, controller.signal, agentId).then(
      (body) => {
        if (!controller.signal.aborted) setState({ status: 'ready', report: normaliseBuildReport(body) });
      },
      (thrown: unknown) => {
        if (controller.signal.aborted) return;
        setState(isUnavailable(thrown) ? { status: 'unavailable' } : { status: 'error', error: thrown });
      },
    );
    return () => controller.abort();
  }, [api, debounced, agentId]);

  return state;
}
