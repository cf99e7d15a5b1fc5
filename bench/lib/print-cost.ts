/** The cost suite's table (see bench/suites/cost.ts for everything it records). */
import { formatNumber, formatTable } from './table.js';

interface Side {
  requests: number;
  system: number;
  messages: number;
  tools: number;
  total: number;
}
interface Compared {
  troupe: Side;
  deepagents: Side;
  ratio: number;
}
export interface CostResult {
  deepagents_version: string;
  per_dispatch: Compared;
  per_team_run: Compared & { goal: { met: boolean } };
  per_turn: Compared & { turns: number };
  anthropic_cache: { turns: number; cached_share: number; goal: { met: boolean } };
  compaction: { turns: number; context_window: number; compactions: number; largest_request_tokens: number };
}

export function printCost(result: CostResult): void {
  const { per_dispatch, per_team_run, per_turn, anthropic_cache, compaction } = result;
  const rows = (label: string, compared: Compared) => [
    [
      `${label}, Troupe`,
      compared.troupe.requests,
      compared.troupe.system,
      compared.troupe.tools,
      compared.troupe.messages,
      compared.troupe.total,
    ],
    [
      `${label}, deepagents`,
      compared.deepagents.requests,
      compared.deepagents.system,
      compared.deepagents.tools,
      compared.deepagents.messages,
      compared.deepagents.total,
    ],
  ];
  console.log(
    `\ncost: input tokens (o200k, counted on the request bodies), Troupe vs deepagents ${result.deepagents_version}, same fake model`,
  );
  console.log(
    formatTable(
      ['workload', 'requests', 'system', 'tool schemas', 'messages', 'input tokens'],
      [
        ...rows('per dispatch', per_dispatch),
        ...rows('per team run (3 subagents)', per_team_run),
        ...rows(`per turn (${per_turn.turns}-turn conversation)`, per_turn),
      ],
    ),
  );
  console.log(`input tokens per dispatch, Troupe / deepagents: ${formatNumber(per_dispatch.ratio)}`);
  console.log(
    `input tokens per team run, Troupe / deepagents: ${formatNumber(per_team_run.ratio)} (goal ≤ 0.6: ${per_team_run.goal.met ? 'met' : 'not met'})`,
  );
  console.log(`input tokens per turn, Troupe / deepagents: ${formatNumber(per_turn.ratio)}`);
  console.log(
    `cached share of input tokens, ${anthropic_cache.turns}-turn Anthropic conversation: ${Math.round(anthropic_cache.cached_share * 100)} % (goal ≥ 70 %: ${anthropic_cache.goal.met ? 'met' : 'not met'})`,
  );
  console.log(
    `compactions in a ${compaction.turns}-turn conversation, ${formatNumber(compaction.context_window)}-token window: ${compaction.compactions} (largest request ${formatNumber(compaction.largest_request_tokens)} tokens)`,
  );
}
