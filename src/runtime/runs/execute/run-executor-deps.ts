import type { Client } from '@a2a-js/sdk/client';
import type { RunLimits } from '../../../run-limits.js';
import type { Clock } from '../../../core/clock.js';
import type { PriceTable } from '../../../core/budgets/price-table.js';
import type { EventBus } from '../../../core/ports/event-bus.js';
import type { ModelProvider } from '../../../core/ports/model-provider.js';
import type { RemoteA2AConnector } from '../../../core/ports/remote-a2a-connector.js';
import type { RunQueue } from '../../../core/ports/run-queue.js';
import type { RunTracer } from '../../../core/ports/run-tracer.js';
import type { Storage } from '../../../core/ports/storage.js';
import type { ToolSource } from '../../../core/ports/tool-source.js';
import type { Run } from '../../../core/records/run.js';
import type { AnyTroupeTool } from '../../../core/tools/troupe-tool.js';
import type { MiddlewareFactory } from '../../middleware/middleware-factory.js';
import type { ModelGateway } from '../../model-gateway/model-gateway.js';
import type { RunEndings } from '../run-endings.js';
import type { LocalRunStarts } from '../start/local-run-starts.js';
import type { RunHandoffs } from '../start/run-handoffs.js';

export interface RunExecutorDeps {
  storage: Storage;
  bus: EventBus;
  models: ModelProvider;
  /** The catalogue of built-in tools; an agent's `config.tools` patterns select from it. */
  tools: AnyTroupeTool[];
  /** External tools (MCP servers) of each agent's config; they join the catalogue tools. */
  toolSources?: ToolSource<AnyTroupeTool>[];
  middleware?: MiddlewareFactory;
  limits: RunLimits;
  leaseMs: number;
  /** Runs doing work at once in this process; runs that only wait on other runs do not count. */
  concurrency: number;
  workerId: string;
  clock: Clock;
  /** How runs end and are cancelled (storage, bus and clock bound once). */
  endings: RunEndings;
  /** Called after a run reached a terminal status (e.g. cascade decisions that need the agent config). */
  onTerminal?: (run: Run) => Promise<void>;
  /**
   * Re-enqueues a run the worker just parked when its human input arrived while it was parking (see
   * resumeWhenNothingPending). Without it such a run waits for the next decision.
   */
  queue?: RunQueue;
  /** OpenTelemetry run spans; absent when tracing is off (then nothing of it runs). */
  tracer?: RunTracer;
  /** Every model call of every run goes through it: retries, fallbacks, the providers' shared limits. */
  gateway: ModelGateway;
  /** Reaches remote A2A experts (backend `a2a`); without it their runs fail with a clear error. */
  remoteExperts?: RemoteA2AConnector<Client>;
  /** What the runs' creators in this process hand over, so a first attempt need not read it back. */
  handoffs?: RunHandoffs;
  /** Where this process's child-run creators find the executor once it started (see LocalRunStarts). */
  localStarts?: LocalRunStarts;
  /** `TROUPE_MODEL_PRICES`: what cached tokens weigh in budgets when the table prices them. */
  prices?: PriceTable;
}
