import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig, type TroupeConfig } from '../../src/config.js';
import { REPO_DIR } from './root-require.js';
import type { Services } from '../../test/helpers/services/services.js';
import type { Teardown } from '../../test/helpers/services/teardown.js';
import { troupeApi, type TroupeApi } from './troupe-api.js';
import { ServerProcess } from '../../test/helpers/server-process.js';

export interface ClusterOptions {
  services: Services;
  /** Scenario files by name (`main` → `main.yaml`), in a scenario dir shared by every process. */
  scenarios: Record<string, string>;
  /** Extra TROUPE_* settings for every process (on top of this process's environment). */
  env?: Record<string, string>;
  teardown: Teardown;
}

export interface Cluster {
  services: Services;
  api: TroupeApi;
  apiProcess: ServerProcess;
  workers: ServerProcess[];
  /** The configuration every process reads from the shared environment (lease, worker concurrency). */
  config: TroupeConfig;
  /** Starts `count` more `--role worker` processes and resolves once each one says it is running. */
  addWorkers(count: number): Promise<void>;
  /** The live worker process whose pid a run's `worker_id` (`wrk_{pid}_{hex}`) names. */
  workerOf(workerId: string | null): ServerProcess | undefined;
}

/**
 * A scale-out deployment on one machine, as docs/scale-out.md runs it: `troupe serve --role api` (HTTP only,
 * seeds the demo user and prints its token) and any number of `troupe serve --role worker`, all sharing
 * PostgreSQL, Redis, the data dir (project workdirs) and the scenario dir. Every process is registered with
 * `teardown` before it starts.
 */
export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const { services, teardown } = options;
  const env = benchServerEnv('troupe-bench-cluster-', options, {
    TROUPE_DATABASE_URL: services.postgres.url,
    TROUPE_REDIS_URL: services.redis.url,
  });
  const config = loadConfig(env, REPO_DIR);

  const start = (name: string, args: string[]): ServerProcess => {
    const started = new ServerProcess(name, args, env);
    teardown.add(name, () => started.stop());
    return started;
  };
  // The API process migrates the schema and seeds the demo user before any worker starts.
  const apiProcess = start('api', ['--role', 'api', '--port', '0']);
  const api = await servedApi(apiProcess);
  const workers: ServerProcess[] = [];

  return {
    services,
    api,
    apiProcess,
    workers,
    config,
    async addWorkers(count) {
      const added = Array.from({ length: count }, (_, index) =>
        start(`worker-${workers.length + index + 1}`, ['--role', 'worker']),
      );
      workers.push(...added);
      await Promise.all(added.map((worker) => worker.waitFor(/Troupe worker \d+ is running/)));
    },
    workerOf(workerId) {
      const pid = Number(/^wrk_(\d+)_/.exec(workerId ?? '')?.[1]);
      return workers.find((worker) => worker.child.pid === pid);
    },
  };
}

/**
 * The embedded default (`troupe serve`: SQLite file, in-process queue and bus) in a process of its own, on the
 * same scenarios: the cluster's reference over the same HTTP client (docs/BENCHMARKS.md, "Like for like").
 */
export async function startEmbeddedServer(
  options: Pick<ClusterOptions, 'scenarios' | 'env' | 'teardown'>,
): Promise<{ api: TroupeApi; process: ServerProcess }> {
  const env = benchServerEnv('troupe-bench-embedded-', options, {});
  // Whatever the bench's own environment says, this one is the embedded default.
  delete env.TROUPE_DATABASE_URL;
  delete env.TROUPE_REDIS_URL;
  const started = new ServerProcess('embedded', ['--port', '0'], env);
  options.teardown.add('the embedded server', () => started.stop());
  return { api: await servedApi(started), process: started };
}

/** A scratch dir (removed at teardown) with the scenario files, and the environment every process reads. */
function benchServerEnv(
  prefix: string,
  options: Pick<ClusterOptions, 'scenarios' | 'env' | 'teardown'>,
  services: Record<string, string>,
): NodeJS.ProcessEnv {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  options.teardown.add(`the dir ${dir}`, () =>
    Promise.resolve(rmSync(dir, { recursive: true, force: true })),
  );
  const scenarioDir = path.join(dir, 'scenarios');
  mkdirSync(scenarioDir);
  for (const [name, body] of Object.entries(options.scenarios))
    writeFileSync(path.join(scenarioDir, `${name}.yaml`), body);
  return {
    ...process.env,
    ...services,
    TROUPE_DATA_DIR: path.join(dir, 'data'),
    TROUPE_SCENARIO_DIR: scenarioDir,
    TROUPE_HOST: '127.0.0.1',
    ...options.env,
  };
}

/** The client of a serving process, once it printed its URL and the demo user's token. */
async function servedApi(server: ServerProcess): Promise<TroupeApi> {
  const [, url] = await server.waitFor(/Troupe is serving on (http:\/\/\S+)/);
  const [, token] = await server.waitFor(/Token for "demo"[^:]*: (trp_\S+)/);
  if (!url || !token) throw new Error(`${server.name} printed no URL or token:\n${server.tail()}`);
  return troupeApi(url, token);
}
