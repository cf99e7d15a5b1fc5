/** Who may give `execute` the host network with `config.execute.network: true`. */
export const EXECUTE_NETWORK_POLICIES = ['off', 'admin', 'any'] as const;
export type ExecuteNetworkPolicy = (typeof EXECUTE_NETWORK_POLICIES)[number];

/** Server-wide ceilings of the `execute` sandbox; an agent's `config.execute` may only lower them. */
export interface ExecuteSettings {
  /** The bubblewrap binary; unset means `bwrap` on PATH. */
  bwrapPath: string | undefined;
  timeoutMs: number;
  cpuSeconds: number;
  /** Address space per process (RLIMIT_AS). */
  memoryBytes: number;
  /** Processes of the sandbox user at once (RLIMIT_NPROC, counted per sandbox). */
  maxProcesses: number;
  /** stdout + stderr kept for the result; the rest is discarded and counted. */
  outputBytes: number;
  /** Largest file a command may write (RLIMIT_FSIZE). */
  fileBytes: number;
  /** Size of the sandbox's private /tmp (a tmpfs, so it is memory). */
  tmpBytes: number;
  network: ExecuteNetworkPolicy;
  /** Host uid and gid the sandboxed processes run as when Troupe runs as root. */
  sandboxUid: number;
}

export const DEFAULT_EXECUTE_SETTINGS: ExecuteSettings = {
  bwrapPath: undefined,
  timeoutMs: 60_000,
  cpuSeconds: 60,
  memoryBytes: 1024 * 1024 * 1024,
  maxProcesses: 64,
  outputBytes: 32 * 1024,
  fileBytes: 1024 * 1024 * 1024,
  tmpBytes: 256 * 1024 * 1024,
  network: 'admin',
  sandboxUid: 100_000,
};
