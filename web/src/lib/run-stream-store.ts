import { isLiveRun, type LiveRun } from './live-run.ts';

/** The subset of `Storage` used here, so tests can pass a Map-backed fake. */
export interface KeyValueStorage {
  getItem: (key: string) => string | null;
  setItem: (key: string, value: string) => void;
  removeItem: (key: string) => void;
}

export interface RunStreamStore {
  /** The view saved for this run, or undefined (never saved, malformed, or another run's). */
  load: (runId: string) => LiveRun | undefined;
  save: (view: LiveRun) => void;
  clear: (runId: string) => void;
}

const PREFIX = 'troupe.run-stream.';

/**
 * Stream resume bookkeeping, one entry per run in sessionStorage: the folded view and its last seq. A
 * reloaded page restores the view and asks the server only for events after that seq (`Last-Event-ID`), so
 * nothing is lost (the view holds everything up to the seq) and nothing is doubled (the server sends only
 * what follows, and `applyRunEvent` ignores any overlap).
 */
export function createRunStreamStore(storage: KeyValueStorage | undefined): RunStreamStore {
  return {
    load(runId) {
      if (!storage) return undefined;
      try {
        const raw = storage.getItem(PREFIX + runId);
        if (raw === null) return undefined;
        const parsed: unknown = JSON.parse(raw);
        return isLiveRun(parsed) && parsed.runId === runId ? parsed : undefined;
      } catch {
        return undefined;
      }
    },
    save(view) {
      try {
        storage?.setItem(PREFIX + view.runId, JSON.stringify(view));
      } catch {
        // Quota or privacy mode: the stream still works, a reload just replays from the first event.
      }
    },
    clear(runId) {
      try {
        storage?.removeItem(PREFIX + runId);
      } catch {
        // Same as above.
      }
    },
  };
}

export function browserSessionStorage(): KeyValueStorage | undefined {
  try {
    return typeof sessionStorage === 'undefined' ? undefined : sessionStorage;
  } catch {
    return undefined;
  }
}
