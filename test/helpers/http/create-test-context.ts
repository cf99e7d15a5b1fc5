import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { Hono } from 'hono';
import type { TroupeConfig } from '../../../src/config.js';
import { loadConfig } from '../../../src/config.js';
import { TroupeError } from '../../../src/core/errors.js';
import type { Storage } from '../../../src/core/ports/storage.js';
import type { User, UserRole } from '../../../src/core/records/user.js';
import type { AgentService } from '../../../src/runtime/agent-service.js';
import { createAgentService } from '../../../src/runtime/agent-service.js';
import type { AuthService } from '../../../src/runtime/auth-service.js';
import { createAuthService } from '../../../src/runtime/auth-service.js';
import type { ConversationService } from '../../../src/runtime/conversation-service.js';
import { createConversationService } from '../../../src/runtime/conversation-service.js';
import { createClientDelegationService } from '../../../src/runtime/delegation/client-delegation-service.js';
import type { DelegationRunService } from '../../../src/runtime/delegation/delegation-run-service.js';
import type { ProjectService } from '../../../src/runtime/project-service.js';
import { createProjectService } from '../../../src/runtime/project-service.js';
import type { RunServiceApi } from '../../../src/runtime/run-service-api.js';
import type { AppEnv } from '../../../src/http/app-env.js';
import { createApp } from '../../../src/http/create-app.js';
import type { Logger } from '../../../src/http/logger.js';
import { silentLogger } from '../../../src/http/logger.js';
import type { TestStorage } from './create-test-storage.js';
import { createTestStorage } from './create-test-storage.js';
import { createExpertService } from '../../../src/runtime/expert-service.js';
import { createDelegationPolicyService } from '../../../src/runtime/delegation/delegation-policy-service.js';

export interface TestContextOptions {
  /**
   * Use this storage (and its SQLite file) instead of a fresh one, e.g. the runtime harness's; the
   * caller keeps ownership and closes it.
   */
  storage?: { storage: Storage; filename: string };
  /** The run service behind the run routes; default: one that fails every call with `internal`. */
  runs?: RunServiceApi;
  /** Delegation runs behind `POST /api/delegate` (e.g. the runtime harness's); default: not wired. */
  delegationRuns?: DelegationRunService;
  config?: Partial<TroupeConfig>;
  consoleDir?: string;
  sseHeartbeatMs?: number;
  logger?: Logger;
}

export interface TestUser {
  user: User;
  token: string;
}

export interface RequestOptions {
  token?: string;
  /** Sent as JSON unless it is already a string; a string is sent as is (for malformed bodies). */
  body?: unknown;
  headers?: Record<string, string>;
}

export interface TestContext {
  dir: string;
  config: TroupeConfig;
  storage: Storage;
  auth: AuthService;
  agents: AgentService;
  projects: ProjectService;
  conversations: ConversationService;
  app: Hono<AppEnv>;
  createUser(name: string, role?: UserRole): Promise<TestUser>;
  request(method: string, urlPath: string, options?: RequestOptions): Promise<Response>;
  /** Rows per table, read straight from the SQLite file: "nothing was persisted" means equal snapshots. */
  countRows(): Record<string, number>;
  /** Raw rows of a table, as SQLite stores them (to check what is and is not on disk). */
  rawRows(table: string): Record<string, unknown>[];
  /** Every row of every table: "nothing changed" means equal dumps. */
  dump(): Record<string, Record<string, unknown>[]>;
  close(): Promise<void>;
}

function unwired(): Promise<never> {
  return Promise.reject(new TroupeError('internal', 'No run service in this test context'));
}

const unwiredRuns: RunServiceApi = {
  postMessage: unwired,
  getRun: unwired,
  getResult: unwired,
  cancel: unwired,
  await: unwired,
  listRunsOfConversation: unwired,
  streamEvents: unwired,
  listChildRuns: unwired,
  listApprovals: unwired,
  decideApproval: unwired,
  listQuestions: unwired,
  answerQuestion: unwired,
};

async function openStorage(
  options: TestContextOptions,
): Promise<{ storage: Storage; filename: string; owned?: TestStorage }> {
  if (options.storage !== undefined) return options.storage;
  const owned = await createTestStorage();
  return { storage: owned.storage, filename: owned.filename, owned };
}

/** Storage, services and the app on a temp SQLite file, for in-process `app.request()` tests. */
export async function createTestContext(options: TestContextOptions = {}): Promise<TestContext> {
  const { storage, filename, owned } = await openStorage(options);
  const dir = owned?.dir ?? mkdtempSync(path.join(os.tmpdir(), 'troupe-http-'));
  const config: TroupeConfig = { ...loadConfig({ TROUPE_CHECK_RESPONSES: '1' }, dir), ...options.config };
  const auth = createAuthService(storage);
  const agents = createAgentService(storage, { limits: config.limits });
  const projects = createProjectService(storage, { workdirRoot: path.join(dir, 'workdirs') });
  const conversations = createConversationService({ storage, agents, projects });
  const app = createApp({
    config,
    storage,
    auth,
    agents,
    projects,
    conversations,
    runs: options.runs ?? unwiredRuns,
    experts: createExpertService(storage, agents),
    delegationPolicies: createDelegationPolicyService(storage, (message, context) =>
      (options.logger ?? silentLogger).warn(message, context),
    ),
    ...(options.delegationRuns
      ? { delegation: createClientDelegationService({ storage, runs: options.delegationRuns, projects }) }
      : {}),
    consoleDir: options.consoleDir,
    sseHeartbeatMs: options.sseHeartbeatMs,
    logger: options.logger ?? silentLogger,
  });
  // Read-only second connection: WAL lets it see committed writes without disturbing the server's.
  const reader = new Database(filename, { readonly: true, fileMustExist: true });

  function tableNames(): string[] {
    const rows = reader
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
      )
      .all() as { name: string }[];
    return rows.map((row) => row.name);
  }

  function rawRows(table: string): Record<string, unknown>[] {
    if (!tableNames().includes(table)) throw new Error(`No table ${table}`);
    // rowid keeps the order stable between two dumps of the same data; tables without one (FTS5's
    // WITHOUT ROWID shadow tables) are read in primary-key order anyway.
    const withoutRowid = /\bWITHOUT\s+ROWID\b/i.test(
      (
        reader.prepare('SELECT sql FROM sqlite_master WHERE name = ?').get(table) as
          { sql: string | null } | undefined
      )?.sql ?? '',
    );
    return reader.prepare(`SELECT * FROM "${table}"${withoutRowid ? '' : ' ORDER BY rowid'}`).all() as Record<
      string,
      unknown
    >[];
  }

  return {
    dir,
    config,
    storage,
    auth,
    agents,
    projects,
    conversations,
    app,
    async createUser(name, role = 'member') {
      const created = await auth.createUserWithToken(name, role, 'test');
      return { user: created.user, token: created.token };
    },
    async request(method, urlPath, requestOptions = {}) {
      const headers: Record<string, string> = { ...requestOptions.headers };
      if (requestOptions.token !== undefined) headers.Authorization = `Bearer ${requestOptions.token}`;
      let body: string | undefined;
      if (requestOptions.body !== undefined) {
        body =
          typeof requestOptions.body === 'string' ? requestOptions.body : JSON.stringify(requestOptions.body);
        headers['Content-Type'] ??= 'application/json';
      }
      return app.request(urlPath, { method, headers, body });
    },
    countRows() {
      const counts: Record<string, number> = {};
      for (const name of tableNames()) {
        counts[name] = (reader.prepare(`SELECT COUNT(*) AS n FROM "${name}"`).get() as { n: number }).n;
      }
      return counts;
    },
    rawRows,
    dump() {
      return Object.fromEntries(tableNames().map((name) => [name, rawRows(name)]));
    },
    async close() {
      reader.close();
      if (owned !== undefined) await owned.close();
      else rmSync(dir, { recursive: true, force: true });
    },
  };
}
