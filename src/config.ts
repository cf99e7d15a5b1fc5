import path from 'node:path';
import { TroupeError } from './core/errors.js';

/** Server settings. `loadConfig` is the only place that reads `process.env`. */
export interface TroupeConfig {
  host: string;
  port: number;
  /** Holds the SQLite file and project workdirs in embedded mode. */
  dataDir: string;
  databaseUrl: string | undefined;
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
  openaiCompatible: Record<string, { baseURL: string; apiKey?: string }>;
  openaiBaseUrl: string | undefined;
  openaiApiKey: string | undefined;
  anthropicBaseUrl: string | undefined;
  anthropicApiKey: string | undefined;
  limits: RunLimits;
  /** Attachments and artifact downloads. */
  files: FileLimits;
}

export interface FileLimits {
  /** Largest file one attachment upload may carry. */
  attachmentMaxBytes: number;
  /** Most files one attachment upload (and one message) may carry. */
  attachmentMaxFiles: number;
  /** Largest artifact the download route sends. */
  artifactMaxDownloadBytes: number;
}

export const DEFAULT_FILE_LIMITS: FileLimits = {
  attachmentMaxBytes: 10 * 1024 * 1024,
  attachmentMaxFiles: 10,
  artifactMaxDownloadBytes: 100 * 1024 * 1024,
};

export interface RunLimits {
  maxSteps: number;
  subagentMaxDepth: number;
  /** Deepest `depth` a delegation run may have: A(0) → B(1) → C(2) with the default 2. */
  delegationMaxDepth: number;
  maxActiveChildrenPerRun: number;
  maxActiveChildrenPerUser: number;
  childResultCapBytes: number;
  waitTimeoutMs: number;
}

export const DEFAULT_LIMITS: RunLimits = {
  maxSteps: 25,
  subagentMaxDepth: 1,
  delegationMaxDepth: 2,
  maxActiveChildrenPerRun: 5,
  maxActiveChildrenPerUser: 20,
  childResultCapBytes: 32 * 1024,
  waitTimeoutMs: 30 * 60 * 1000,
};

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

export function loadConfig(env: Env = process.env, cwd = process.cwd()): TroupeConfig {
  const dataDir = path.resolve(cwd, env.TROUPE_DATA_DIR ?? 'data');
  const leaseExpiry = env.TROUPE_LEASE_EXPIRY ?? 'resume';
  if (leaseExpiry !== 'resume' && leaseExpiry !== 'fail') {
    throw new TroupeError('config_invalid', `TROUPE_LEASE_EXPIRY must be "resume" or "fail", got "${leaseExpiry}"`);
  }
  const openaiCompatible: TroupeConfig['openaiCompatible'] = {};
  for (const [key, value] of Object.entries(env)) {
    const match = /^TROUPE_OPENAI_COMPATIBLE_([A-Z0-9_]+)_BASE_URL$/.exec(key);
    if (match?.[1] && value) {
      const name = match[1].toLowerCase();
      openaiCompatible[name] = { baseURL: value, apiKey: env[`TROUPE_OPENAI_COMPATIBLE_${match[1]}_API_KEY`] };
    }
  }
  return {
    host: env.TROUPE_HOST ?? '127.0.0.1',
    port: integer(env, 'TROUPE_PORT', 3000),
    dataDir,
    databaseUrl: env.TROUPE_DATABASE_URL || undefined,
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
      maxActiveChildrenPerRun: integer(env, 'TROUPE_MAX_CHILDREN_PER_RUN', DEFAULT_LIMITS.maxActiveChildrenPerRun),
      maxActiveChildrenPerUser: integer(env, 'TROUPE_MAX_CHILDREN_PER_USER', DEFAULT_LIMITS.maxActiveChildrenPerUser),
      childResultCapBytes: integer(env, 'TROUPE_CHILD_RESULT_CAP_BYTES', DEFAULT_LIMITS.childResultCapBytes),
      waitTimeoutMs: integer(env, 'TROUPE_WAIT_TIMEOUT_MS', DEFAULT_LIMITS.waitTimeoutMs),
    },
    files: {
      attachmentMaxBytes: integer(env, 'TROUPE_ATTACHMENT_MAX_BYTES', DEFAULT_FILE_LIMITS.attachmentMaxBytes),
      attachmentMaxFiles: integer(env, 'TROUPE_ATTACHMENT_MAX_FILES', DEFAULT_FILE_LIMITS.attachmentMaxFiles),
      artifactMaxDownloadBytes: integer(env, 'TROUPE_ARTIFACT_MAX_DOWNLOAD_BYTES', DEFAULT_FILE_LIMITS.artifactMaxDownloadBytes),
    },
  };
}
