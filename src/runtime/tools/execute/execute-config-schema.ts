import { z } from 'zod';
import type { AgentExecuteConfig } from '../../../core/records/agent.js';

const limit = (max: number) => z.number().int().positive().max(max).optional();

/** `config.execute` of an agent. Values above the server's settings are allowed but have no effect. */
export const executeConfigSchema = z
  .object({
    network: z.boolean().optional(),
    timeout_ms: limit(24 * 60 * 60 * 1000),
    cpu_seconds: limit(24 * 60 * 60),
    memory_mb: limit(1024 * 1024),
    max_processes: limit(100_000),
    output_bytes: limit(1024 * 1024 * 1024),
  })
  .strict();

type Same<TLeft, TRight> = [TLeft, keyof TLeft] extends [TRight, keyof TRight]
  ? [TRight, keyof TRight] extends [TLeft, keyof TLeft]
    ? true
    : false
  : false;

/** Fails to compile when the schema and the record type drift apart. */
export const EXECUTE_CONFIG_SCHEMA_MATCHES_RECORD: Same<
  z.output<typeof executeConfigSchema>,
  AgentExecuteConfig
> = true;
