import path from 'node:path';
import Database from 'better-sqlite3';
import type { Hono } from 'hono';
import type { TroupeConfig } from '../../../src/config.js';
import { loadConfig } from '../../../src/config.js';
import { createMemoryEventBus } from '../../../src/adapters/bus/memory/create-memory-event-bus.js';
import { createMemoryModelAdmission } from '../../../src/adapters/model-admission/memory/create-memory-model-admission.js';
import { createModelProvider } from '../../../src/adapters/models/create-model-provider.js';
import { createMemoryRunQueue } from '../../../src/adapters/queue/memory/create-memory-run-queue.js';
import { systemClock } from '../../../src/core/clock.js';
import type { Storage } from '../../../src/core/ports/storage.js';
import type { User, UserRole } from '../../../src/core/records/user.js';
import type { AgentService } from '../../../src/runtime/agents/agent-service.js';
import type { AuthService } from '../../../src/runtime/auth/auth-service.js';
import type { ConversationService } from '../../../src/runtime/conversations/conversation-service.js';
import { createRuntime, type Runtime } from '../../../src/runtime/create-runtime.js';
import type { ProjectService } from '../../../src/runtime/projects/project-service.js';
import type { RunServiceApi } from '../../../src/runtime/runs/run-service-api.js';
import type { AppEnv } from '../../../src/http/app-env.js';
import { createApp } from '../../../src/http/create-app.js';
import type { Logger } from '../../../src/http/logger.js';
import { silentLogger } from '../../../src/http/logger.js';
import type { TestStorage } from './create-test-storage.js';
import { createTestStorage } from './create-test-storage.js';
import type { RuntimeHarness } from '../create-runtime-harness.js';

export interface TestContextOptions {
  /**
   * Serve the harness's runtime (its storage, worker and services) instead of a fresh one that executes no
   * run; the caller keeps ownership and closes it.
   */
  harness?: RuntimeHarness;
  /** Settings beside the defaults; with a harness, give them to the harness instead. */
  config?: Partial<TroupeConfig>;
  /** Wraps or replaces the runtime's run service behind the run routes (e.g. to observe or fail calls). */
  runs?: RunServiceApi;
  consoleDir?: string;
  sseHeartbeatMs?: number;
  logger?: Logger;
  /** How long the SQLite file's writes wait for another connection's lock (default 5 s). */
  sqliteBusyTimeoutMs?: number;
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

interface ServedRuntime {
  dir: string;
  config: TroupeConfig;
  storage: Storage;
  filename: string;
  runtime: Runtime;
  owned?: TestStorage;
}

/** The harness's runtime, or the production wiring over a fresh SQLite file with no worker started. */
async function serveRuntime(options: TestContextOptions): Promise<ServedRuntime> {
  const { harness } = options;
  if (harness !== undefined) {
    // The runtime's services were built from the harness's config: settings here would reach only HTTP.
    if (options.config !== undefined) throw new Error('Configure the harness (its config option) instead');
    const config = { ...harness.config, checkResponses: true };
    return {
      dir: harness.dir,
      config,
      storage: harness.storage,
      filename: path.join(harness.dir, 'troupe.db'),
      runtime: harness.runtime,
    };
  }
  const owned = await createTestStorage(
    options.sqliteBusyTimeoutMs === undefined ? {} : { busyTimeoutMs: options.sqliteBusyTimeoutMs },
  );
  const config: TroupeConfig = {
    ...loadConfig({ TROUPE_CHECK_RESPONSES: '1' }, owned.dir),
    ...options.config,
  };
  const runtime = createRuntime({
    config,
    storage: owned.storage,
    bus: createMemoryEventBus(),
    queue: createMemoryRunQueue({ concurrency: 1 }),
    clock: systemClock,
    models: createModelProvider({ scenarioDir: config.scenarioDir, openaiCompatible: {} }),
    // No worker runs here, so no model call ever waits: the in-process admission holds nothing to close.
    modelAdmission: createMemoryModelAdmission({ limits: config.modelCalls.limits }),
    workerId: 'wrk_http_test',
    warn: (message, context) => (options.logger ?? silentLogger).warn(message, context),
  });
  return { dir: owned.dir, config, storage: owned.storage, filename: owned.filename, runtime, owned };
}

/** Storage, services and the app on a temp SQLite file, for in-process `app.request()` tests. */
export async function createTestContext(options: TestContextOptions = {}): Promise<TestContext> {
  const { dir, config, storage, filename, runtime, owned } = await serveRuntime(options);
  const { auth, agents, projects, conversations } = runtime;
  const app = createApp({
    ...runtime,
    config,
    storage,
    runs: options.runs ?? runtime.runs,
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
    },
  };
}
