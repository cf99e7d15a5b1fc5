export interface SweepOptions {
  /** The server's body limit (`maxBodyBytes`), to build bodies just over it. */
  maxBodyBytes: number;
  /** Real ids to put in path params for variants whose fault is elsewhere (body, query). */
  realIds: (path: string, param: string) => string | undefined;
  /** Fewer variants per operation (for `npm test`). */
  smoke?: boolean;
  concurrency?: number;
  timeoutMs?: number;
}
