/** Limits of one sandboxed command; each is enforced by the kernel or by the runner, never by the command. */
export interface SandboxLimits {
  /** Wall time; the whole process tree is killed when it runs out. */
  timeoutMs: number;
  /** CPU seconds per process (RLIMIT_CPU). */
  cpuSeconds: number;
  /** Address space per process (RLIMIT_AS). */
  memoryBytes: number;
  /** Processes of the sandbox user at once (RLIMIT_NPROC). */
  maxProcesses: number;
  /** stdout + stderr kept; the rest is read and discarded. */
  outputBytes: number;
  /** Largest file a process may write (RLIMIT_FSIZE). */
  fileBytes: number;
  /** Size of the private /tmp tmpfs. */
  tmpBytes: number;
}

export interface SandboxRequest {
  command: string;
  /** Host directory mounted read-write at `SANDBOX_WORKDIR`, the only writable host path. */
  workdir: string;
  network: boolean;
  limits: SandboxLimits;
  /** Aborting kills the whole process tree; `run` then rejects with the signal's reason. */
  signal?: AbortSignal;
}

export interface SandboxResult {
  /** null when the sandbox was killed by a signal (timeout). */
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  /** Bytes read but not kept, per stream, once `outputBytes` was reached. */
  omitted: { stdout: number; stderr: number };
  timedOut: boolean;
}

/** Runs shell commands isolated from the host; there is no implementation that runs them unsandboxed. */
export interface Sandbox {
  run(request: SandboxRequest): Promise<SandboxResult>;
}

/** Where the workdir appears inside the sandbox; also the command's working directory. */
export const SANDBOX_WORKDIR = '/workspace';

/** The uid and gid commands run as inside the sandbox. */
export const SANDBOX_USER_ID = 1000;
