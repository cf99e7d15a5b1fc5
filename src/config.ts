import { loadA2AIdentitySettings, type A2AIdentitySettings } from './a2a-identity-settings.js';
import { parsePriceTable, type PriceTable } from './core/budgets/price-table.js';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { parseEgressAllowEntry } from './core/egress/egress-policy.js';
import { TroupeError } from './core/errors.js';
import { declaredWindowSchema } from './core/model-calls/model-windows.js';
import type { OpenAiCompatibleEndpoint } from './core/ports/model-provider.js';
import { z } from 'zod';
import { DEFAULT_SKILL_LIMITS, type SkillLimits } from './core/skills/skill-limits.js';
import { loadTracingSettings, type TracingSettings } from './tracing-settings.js';
import { parse as parseYaml } from 'yaml';
import { parseModelLimits, type ModelLimits } from './core/model-limits/model-limits.js';
import { DEFAULT_MODEL_CALL_SETTINGS, type ModelCallSettings } from './model-call-settings.js';
import { DEFAULT_FILE_LIMITS, type FileLimits } from './file-limits.js';
import { DEFAULT_LIMITS, type RunLimits } from './run-limits.js';
import {
  DEFAULT_EXECUTE_SETTINGS,
  EXECUTE_NETWORK_POLICIES,
  type ExecuteNetworkPolicy,
  type ExecuteSettings,
} from './execute-settings.js';

/** Server settings. `loadConfig` is the only place that reads `process.env`. */
export interface TroupeConfig {
  host: string;
  port: number;
  /** Holds the SQLite file and project workdirs in embedded mode. */
  dataDir: string;
  databaseUrl: string | undefined;
  /** Server-side prepared statements on PostgreSQL (`TROUPE_DATABASE_PREPARED_STATEMENTS`, default true). */
  databasePreparedStatements: boolean;
  redisUrl: string | undefined;
  /** Folder of scripted-model scenarios (`scripted:NAME` → `NAME.yaml|yml|json`). */
  scenarioDir: string;
  /** Runs executed at once by this process's worker. */
  workerConcurrency: number;
  leaseMs: number;
  /** What happens to a run whose worker vanished: resume from its last checkpoint, or fail it. */
  leaseExpiry: 'resume' | 'fail';
  maxBodyBytes: number;
  defaultModel: string;
  /** `openai-compatible:NAME:model` endpoints, from `TROUPE_OPENAI_COMPATIBLE_<NAME>_BASE_URL` / `_API_KEY`. */
  openaiCompatible: Record<string, OpenAiCompatibleEndpoint>;
  openaiBaseUrl: string | undefined;
  openaiApiKey: string | undefined;
  anthropicBaseUrl: string | undefined;
  anthropicApiKey: string | undefined;
  limits: RunLimits;
  /** The sandboxed `execute` tool (README "Sandboxed `execute`"). */
  execute: ExecuteSettings;
  /** `TROUPE_EGRESS_ALLOW`: hosts and CIDR blocks that agents of non-admin users may reach anyway (docs/egress-and-secrets.md). */
  egressAllow: string[];
  /** Failed bearer attempts per client address and window before 429; 0 turns the throttle off. */
  authFailureLimit: number;
  authFailureWindowMs: number;
  /** Take the client address from `X-Forwarded-For` (only behind a proxy that sets it). */
  trustProxy: boolean;
  /** Caps on skill uploads and installs (archive bytes, unpacked bytes, file count). */
  skillLimits: SkillLimits;
  /** Largest knowledge upload request (every file of it together), in bytes. */
  knowledgeMaxUploadBytes: number;
  /** Attachments and artifact downloads. */
  files: FileLimits;
  /** OpenTelemetry GenAI traces, from the standard `OTEL_EXPORTER_OTLP_*` variables; undefined = off. */
  tracing: TracingSettings | undefined;
  /** Caller claims between Troupe servers (A2A delegation): this server's signing key, the issuers it trusts. */
  a2aIdentity: A2AIdentitySettings;
  /** `TROUPE_MODEL_PRICES`: a JSON file of USD per million tokens by model; turns tokens into cost. */
  modelPrices: PriceTable | undefined;
  /** Retries, timeouts and shared provider limits of model calls (README "Real providers"). */
  modelCalls: ModelCallSettings;
  /** `TROUPE_CHECK_RESPONSES=1`: check every JSON success body against its documented schema (tests). */
  checkResponses: boolean;
}

type Env = Record<string, string | undefined>;

function integer(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) {
    throw new TroupeError('config_invalid', `${name} must be a non-negative integer, got "${raw}"`);
  }
  return value;
}

function loadModelPrices(env: Env, cwd: string): PriceTable | undefined {
  const file = env.TROUPE_MODEL_PRICES;
  if (file === undefined || file === '') return undefined;
  try {
    return parsePriceTable(JSON.parse(readFileSync(path.resolve(cwd, file), 'utf8')));
  } catch (error) {
    throw new TroupeError(
      'config_invalid',
      `TROUPE_MODEL_PRICES (${file}): ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

function loadModelLimits(env: Env, cwd: string): ModelLimits {
  const file = env.TROUPE_MODEL_LIMITS;
  if (file === undefined || file === '') return {};
  try {
    // YAML is a superset of JSON: one parser reads either form of the file.
    return parseModelLimits(parseYaml(readFileSync(path.resolve(cwd, file), 'utf8')));
  } catch (error) {
    throw new TroupeError(
      'config_invalid',
      `TROUPE_MODEL_LIMITS (${file}): ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

function loadModelCallSettings(env: Env, cwd: string): ModelCallSettings {
  const defaults = DEFAULT_MODEL_CALL_SETTINGS;
  return {
    maxRetries: integer(env, 'TROUPE_MODEL_MAX_RETRIES', defaults.maxRetries),
    maxWaitMs: integer(env, 'TROUPE_MODEL_MAX_WAIT_MS', defaults.maxWaitMs),
    retryBaseMs: integer(env, 'TROUPE_MODEL_RETRY_BASE_MS', defaults.retryBaseMs),
    idleTimeoutMs: integer(env, 'TROUPE_MODEL_IDLE_TIMEOUT_MS', defaults.idleTimeoutMs),
    limits: loadModelLimits(env, cwd),
    compactAt: share(env, 'TROUPE_CONTEXT_COMPACT_AT', defaults.compactAt),
    maxContinuations: integer(env, 'TROUPE_MODEL_MAX_CONTINUATIONS', defaults.maxContinuations),
  };
}

/**
 * An `openai-compatible` endpoint's model window, `TROUPE_OPENAI_COMPATIBLE_<NAME>_CONTEXT_WINDOW` and
 * `_MAX_OUTPUT_TOKENS` (docs/model-calls.md#context-windows): what every model of the endpoint reads and writes.
 */
function endpointWindow(env: Env, name: string): Pick<OpenAiCompatibleEndpoint, 'window'> {
  const prefix = `TROUPE_OPENAI_COMPATIBLE_${name}_`;
  const raw = {
    context_window: env[`${prefix}CONTEXT_WINDOW`] || undefined,
    max_output_tokens: env[`${prefix}MAX_OUTPUT_TOKENS`] || undefined,
  };
  if (raw.context_window === undefined && raw.max_output_tokens === undefined) return {};
  const parsed = declaredWindowSchema.safeParse(raw);
  if (!parsed.success) {
    throw new TroupeError(
      'config_invalid',
      `${prefix}CONTEXT_WINDOW / ${prefix}MAX_OUTPUT_TOKENS: ${z.prettifyError(parsed.error)}`,
    );
  }
  return { window: parsed.data };
}

function share(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0 || value > 1) {
    throw new TroupeError('config_invalid', `${name} must be a number above 0 and at most 1, got "${raw}"`);
  }
  return value;
}

function egressAllowList(env: Env): string[] {
  const entries = (env.TROUPE_EGRESS_ALLOW ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  for (const entry of entries) {
    if (!parseEgressAllowEntry(entry)) {
      throw new TroupeError(
        'config_invalid',
        `TROUPE_EGRESS_ALLOW entries must be host names, *.domains, addresses or CIDR blocks, got "${entry}"`,
      );
    }
  }
  return entries;
}

/** A true/false setting; unset or empty is `fallback`. */
function flag(env: Env, name: string, fallback = false): boolean {
  const raw = (env[name] ?? '').trim().toLowerCase();
  if (raw === '') return fallback;
  if (raw === '0' || raw === 'false' || raw === 'no') return false;
  if (raw === '1' || raw === 'true' || raw === 'yes') return true;
  throw new TroupeError('config_invalid', `${name} must be true or false, got "${env[name]}"`);
}

export function loadConfig(env: Env = process.env, cwd = process.cwd()): TroupeConfig {
  const dataDir = path.resolve(cwd, env.TROUPE_DATA_DIR ?? 'data');
  const leaseExpiry = env.TROUPE_LEASE_EXPIRY ?? 'resume';
  if (leaseExpiry !== 'resume' && leaseExpiry !== 'fail') {
    throw new TroupeError(
      'config_invalid',
      `TROUPE_LEASE_EXPIRY must be "resume" or "fail", got "${leaseExpiry}"`,
    );
  }
  const openaiCompatible: TroupeConfig['openaiCompatible'] = {};
  for (const [key, value] of Object.entries(env)) {
    const match = /^TROUPE_OPENAI_COMPATIBLE_([A-Z0-9_]+)_BASE_URL$/.exec(key);
    if (match?.[1] && value) {
      const name = match[1].toLowerCase();
      openaiCompatible[name] = {
        baseURL: value,
        apiKey: env[`TROUPE_OPENAI_COMPATIBLE_${match[1]}_API_KEY`],
        ...endpointWindow(env, match[1]),
        ...(flag(env, `TROUPE_OPENAI_COMPATIBLE_${match[1]}_PROMPT_CACHE_KEY`)
          ? { promptCacheKey: true }
          : {}),
      };
    }
  }
  return {
    host: env.TROUPE_HOST ?? '127.0.0.1',
    port: integer(env, 'TROUPE_PORT', 3000),
    dataDir,
    databaseUrl: env.TROUPE_DATABASE_URL || undefined,
    databasePreparedStatements: flag(env, 'TROUPE_DATABASE_PREPARED_STATEMENTS', true),
    redisUrl: env.TROUPE_REDIS_URL || undefined,
    scenarioDir: path.resolve(cwd, env.TROUPE_SCENARIO_DIR ?? 'scenarios'),
    workerConcurrency: integer(env, 'TROUPE_WORKER_CONCURRENCY', 8),
    leaseMs: integer(env, 'TROUPE_LEASE_MS', 30_000),
    leaseExpiry,
    maxBodyBytes: integer(env, 'TROUPE_MAX_BODY_BYTES', 1024 * 1024),
    defaultModel: env.TROUPE_DEFAULT_MODEL ?? 'scripted:demo',
    openaiCompatible,
    openaiBaseUrl: env.OPENAI_BASE_URL || undefined,
    openaiApiKey: env.OPENAI_API_KEY || undefined,
    anthropicBaseUrl: env.ANTHROPIC_BASE_URL || undefined,
    anthropicApiKey: env.ANTHROPIC_API_KEY || undefined,
    limits: {
      maxSteps: integer(env, 'TROUPE_MAX_STEPS', DEFAULT_LIMITS.maxSteps),
      subagentMaxDepth: integer(env, 'TROUPE_SUBAGENT_MAX_DEPTH', DEFAULT_LIMITS.subagentMaxDepth),
      delegationMaxDepth: integer(env, 'TROUPE_DELEGATION_MAX_DEPTH', DEFAULT_LIMITS.delegationMaxDepth),
      maxActiveChildrenPerRun: integer(
        env,
        'TROUPE_MAX_CHILDREN_PER_RUN',
        DEFAULT_LIMITS.maxActiveChildrenPerRun,
      ),
      maxActiveChildrenPerUser: integer(
        env,
        'TROUPE_MAX_CHILDREN_PER_USER',
        DEFAULT_LIMITS.maxActiveChildrenPerUser,
      ),
      childResultCapBytes: integer(env, 'TROUPE_CHILD_RESULT_CAP_BYTES', DEFAULT_LIMITS.childResultCapBytes),
      toolResultMaxTokens: integer(env, 'TROUPE_TOOL_RESULT_MAX_TOKENS', DEFAULT_LIMITS.toolResultMaxTokens),
      waitTimeoutMs: integer(env, 'TROUPE_WAIT_TIMEOUT_MS', DEFAULT_LIMITS.waitTimeoutMs),
      inactivityTimeoutMs: integer(env, 'TROUPE_INACTIVITY_TIMEOUT_MS', DEFAULT_LIMITS.inactivityTimeoutMs),
      childBudgetShare: share(env, 'TROUPE_CHILD_BUDGET_SHARE', DEFAULT_LIMITS.childBudgetShare),
    },
    execute: loadExecuteSettings(env),
    egressAllow: egressAllowList(env),
    authFailureLimit: integer(env, 'TROUPE_AUTH_FAILURE_LIMIT', 10),
    authFailureWindowMs: integer(env, 'TROUPE_AUTH_FAILURE_WINDOW_MS', 60_000),
    trustProxy: flag(env, 'TROUPE_TRUST_PROXY'),
    skillLimits: {
      ...DEFAULT_SKILL_LIMITS,
      maxArchiveBytes: integer(env, 'TROUPE_SKILL_MAX_ARCHIVE_BYTES', DEFAULT_SKILL_LIMITS.maxArchiveBytes),
      maxTotalBytes: integer(env, 'TROUPE_SKILL_MAX_BYTES', DEFAULT_SKILL_LIMITS.maxTotalBytes),
      maxFiles: integer(env, 'TROUPE_SKILL_MAX_FILES', DEFAULT_SKILL_LIMITS.maxFiles),
    },
    knowledgeMaxUploadBytes: integer(env, 'TROUPE_KNOWLEDGE_MAX_UPLOAD_BYTES', 10 * 1024 * 1024),
    files: {
      attachmentMaxBytes: integer(env, 'TROUPE_ATTACHMENT_MAX_BYTES', DEFAULT_FILE_LIMITS.attachmentMaxBytes),
      attachmentMaxFiles: integer(env, 'TROUPE_ATTACHMENT_MAX_FILES', DEFAULT_FILE_LIMITS.attachmentMaxFiles),
      artifactMaxDownloadBytes: integer(
        env,
        'TROUPE_ARTIFACT_MAX_DOWNLOAD_BYTES',
        DEFAULT_FILE_LIMITS.artifactMaxDownloadBytes,
      ),
    },
    tracing: loadTracingSettings(env),
    a2aIdentity: loadA2AIdentitySettings(env),
    modelPrices: loadModelPrices(env, cwd),
    modelCalls: loadModelCallSettings(env, cwd),
    checkResponses: flag(env, 'TROUPE_CHECK_RESPONSES'),
  };
}

function positive(env: Env, name: string, fallback: number, unit = 1): number {
  const value = integer(env, name, fallback / unit) * unit;
  if (value === 0) throw new TroupeError('config_invalid', `${name} must be a positive integer`);
  return value;
}

function loadExecuteSettings(env: Env): ExecuteSettings {
  const defaults = DEFAULT_EXECUTE_SETTINGS;
  const network = env.TROUPE_EXECUTE_NETWORK || defaults.network;
  if (!(EXECUTE_NETWORK_POLICIES as readonly string[]).includes(network)) {
    throw new TroupeError(
      'config_invalid',
      `TROUPE_EXECUTE_NETWORK must be one of ${EXECUTE_NETWORK_POLICIES.join(', ')}, got "${network}"`,
    );
  }
  const mb = 1024 * 1024;
  return {
    bwrapPath: env.TROUPE_BWRAP_PATH || undefined,
    timeoutMs: positive(env, 'TROUPE_EXECUTE_TIMEOUT_MS', defaults.timeoutMs),
    cpuSeconds: positive(env, 'TROUPE_EXECUTE_CPU_SECONDS', defaults.cpuSeconds),
    memoryBytes: positive(env, 'TROUPE_EXECUTE_MEMORY_MB', defaults.memoryBytes, mb),
    maxProcesses: positive(env, 'TROUPE_EXECUTE_MAX_PROCESSES', defaults.maxProcesses),
    outputBytes: positive(env, 'TROUPE_EXECUTE_OUTPUT_BYTES', defaults.outputBytes),
    fileBytes: positive(env, 'TROUPE_EXECUTE_FILE_MB', defaults.fileBytes, mb),
    tmpBytes: positive(env, 'TROUPE_EXECUTE_TMP_MB', defaults.tmpBytes, mb),
    network: network as ExecuteNetworkPolicy,
    sandboxUid: positive(env, 'TROUPE_EXECUTE_SANDBOX_UID', defaults.sandboxUid),
  };
}
