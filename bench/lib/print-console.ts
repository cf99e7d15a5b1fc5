import { formatTable } from './table.js';

interface Summary {
  median: number;
  p99: number;
}
interface CacheResult {
  first_contentful_paint_ms: Summary;
  transcript_visible_ms: Summary;
}
export interface ConsoleResult {
  loads_per_cell: number;
  profiles: Record<
    string,
    { cpu_slowdown: number; added_latency_ms: number; cold: CacheResult; warm: CacheResult }
  >;
  goal: { fcp_under_ms: number; transcript_under_ms: number; met: boolean };
}

/** The console suite's table: one row per profile and cache state, medians of `loads_per_cell` loads. */
export function printConsole(result: ConsoleResult): void {
  console.log(`\nConsole: a conversation opened in chromium (median of ${result.loads_per_cell} loads)`);
  const rows: (string | number)[][] = [];
  for (const [name, profile] of Object.entries(result.profiles)) {
    const label =
      profile.cpu_slowdown === 1 && profile.added_latency_ms === 0
        ? name
        : `${name} (${profile.cpu_slowdown}× CPU, +${profile.added_latency_ms} ms)`;
    for (const cache of ['cold', 'warm'] as const) {
      const times = profile[cache];
      rows.push([
        `${label}, ${cache} cache`,
        times.first_contentful_paint_ms.median,
        times.transcript_visible_ms.median,
        times.transcript_visible_ms.p99,
      ]);
    }
  }
  console.log(formatTable(['profile', 'FCP ms', 'transcript ms', 'transcript p99 ms'], rows));
  console.log(
    `Goal on the phone profile, cold cache (FCP < ${result.goal.fcp_under_ms} ms, transcript < ${result.goal.transcript_under_ms} ms): ${result.goal.met ? 'met' : 'NOT met'}.`,
  );
}
