import type { z } from 'zod';
import type { Run } from '../records/run.js';
import type { AdoptCheckpoint } from './adopt-checkpoint.js';
import type { ToolEventArgs } from '../records/tool-event.js';
import type { ToolEffect } from './tool-effect.js';

/** What every tool execution gets (docs/agent-loop.md): the run, its tool-call id, an abort signal, an event emitter. */
export interface ToolContext {
  run: Run;
  toolCallId: string;
  abortSignal: AbortSignal;
  /** Appends an event about this call to the run's stream (persisted, then published), with its `tool_call_id`. */
  emit(...event: ToolEventArgs): Promise<void>;
  /** Absolute path of the run's project workdir (shared by the whole run tree). */
  workdir: string;
  /**
   * Runs a wait on other runs without holding this worker's execution slot, so the runs waited for can use
   * it. Absent outside an executor (tests): then `work` simply runs.
   */
  suspend?: <T>(work: () => Promise<T>) => Promise<T>;
  /**
   * The step's checkpoint, when the loop held it for this call (`TroupeTool.adoptsCheckpoint`): a child start
   * writes it in its own transaction. Undefined when nothing is held or another call took it.
   */
  adoptCheckpoint?: AdoptCheckpoint;
}

/** Waits through `context.suspend` when the executor offers it. */
export function waitOutsideSlot<T>(context: ToolContext, work: () => Promise<T>): Promise<T> {
  return context.suspend ? context.suspend(work) : work();
}

/** JSON-serialisable tool output: a string is shown to the model as is, anything else as JSON. */
export type ToolOutput = string | number | boolean | null | ToolOutput[] | { [key: string]: ToolOutput };

export interface TroupeTool<TInput = unknown> {
  name: string;
  description: string;
  /** Validated before `execute`; also what the model sees as the tool's JSON schema. */
  inputSchema: z.ZodType<TInput>;
  /**
   * What a second run of the same call does (docs/effects-and-forks.md#effect-classes): a call that started and
   * left no result is run again on resume unless it is `external`, whose result then says its outcome is unknown.
   */
  effect: ToolEffect;
  /** Sensitive tools write or execute; they need approval (or `always_trust`) and are hidden from subagents. */
  sensitive?: boolean;
  /**
   * The tool's one effect is a transaction that takes the step's held checkpoint (`ToolContext.adoptCheckpoint`),
   * as a child start does: the loop then holds the checkpoint for it instead of committing it first. Whatever
   * the tool does before that transaction must leave no trace a crash could need the checkpoint for.
   */
  adoptsCheckpoint?: boolean;
  /** Throwing a TroupeError (or any error) becomes an error tool result the model sees, not a failed run. */
  execute(input: TInput, context: ToolContext): Promise<ToolOutput>;
}

/** Erases the input type so tools of different inputs can share one list. */
export type AnyTroupeTool = TroupeTool<any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export function defineTool<TInput>(tool: TroupeTool<TInput>): TroupeTool<TInput> {
  return tool;
}
