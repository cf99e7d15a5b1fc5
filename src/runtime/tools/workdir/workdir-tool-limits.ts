/**
 * Caps of the workdir tools. They keep one tool result small enough for a model context and keep a single
 * call from scanning a huge tree or reading a huge file into memory.
 */
export const WORKDIR_TOOL_LIMITS = {
  /** Largest text `read_file` returns, whole file or one offset/limit slice. */
  readBytes: 256 * 1024,
  /** Largest file `edit_file` loads: it is never shown to the model, so it may exceed `readBytes`. */
  editBytes: 1024 * 1024,
  /** Files above this are skipped by `grep`. */
  grepFileBytes: 1024 * 1024,
  grepMatches: 500,
  /** Longest line text `grep` prints; a minified bundle would otherwise flood the result. */
  grepLineChars: 300,
  globResults: 1000,
  lsEntries: 1000,
  /** Bytes sniffed for a NUL byte to call a file binary (the heuristic of git and grep). */
  binarySniffBytes: 8000,
  /**
   * Deepest directory level `glob` and `grep` enter: a walk holds one open descriptor per level, so a
   * pathologically deep tree must not exhaust them.
   */
  walkDepth: 64,
} as const;

/** Directory names `glob` and `grep` never enter: vendored or VCS data, large and rarely what is asked. */
export const SKIPPED_DIRECTORY_NAMES: ReadonlySet<string> = new Set(['node_modules', '.git']);
