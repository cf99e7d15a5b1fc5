/**
 * Admission of model calls to their provider (README "Real providers"): the limits of `TROUPE_MODEL_LIMITS`
 * (calls in flight, requests and tokens a minute, per provider and per model) and a provider's "wait until"
 * after it refused a call, shared by every run of the process (in-process adapter) or of every process
 * (Redis adapter). Calls that must wait are served round-robin across users, oldest first for each user.
 */
export interface AdmissionTicket {
  /** The provider key of `ResolvedModel.limitKey` (`openai`, `openai-compatible:NAME`, …). */
  provider: string;
  /** The model id within that provider. */
  model: string;
  /** Whose call it is: queued calls take turns per user. */
  userId: string;
  /** The call's estimated tokens, asked only when a tokens-a-minute limit applies. */
  tokens: () => number;
  /**
   * The longest pause of the provider this call sits out: a pause ending later refuses it at once with
   * `ProviderPausedError` (its caller may fall back to another model), as a retry would be refused.
   */
  maxPauseMs?: number;
}

/** The provider is paused for longer than the call's `maxPauseMs`. */
export class ProviderPausedError extends Error {
  constructor(
    readonly provider: string,
    readonly pausedForMs: number,
  ) {
    super(`${provider} asked every call to wait ${Math.ceil(pausedForMs / 1000)} s`);
    this.name = 'ProviderPausedError';
  }
}

export interface AdmissionGrant {
  /** How long the call waited for its turn (0 when admitted at once). */
  readonly waitedMs: number;
  /**
   * Gives the call's place back once it settled; `usedTokens` replaces the estimate in the tokens-a-minute
   * count (a failed attempt passes what the provider may have counted, or nothing).
   */
  release(usedTokens?: number): Promise<void>;
}

export interface ModelAdmission {
  /**
   * Resolves once the call may go, holding its place until `release`. Rejects with the signal's reason the
   * moment it aborts, taking nothing.
   */
  admit(ticket: AdmissionTicket, signal: AbortSignal): Promise<AdmissionGrant>;
  /**
   * The provider asked to wait (a 429 or an overload with a wait): no call to it is admitted before
   * `untilMs` (epoch milliseconds); a later pause extends it, an earlier one changes nothing.
   */
  pause(provider: string, untilMs: number): Promise<void>;
  close(): Promise<void>;
}
