/** Bounds of what one upload may cost; the request size itself is `TROUPE_KNOWLEDGE_MAX_UPLOAD_BYTES`. */
export interface KnowledgeLimits {
  /** Whole upload request (every file of a multipart upload together). */
  maxUploadBytes: number;
  /** Files in one upload. */
  maxFilesPerUpload: number;
  /** Extracted text of one document, in characters: what a small PDF may inflate to is bounded too. */
  maxTextChars: number;
  maxPdfPages: number;
  /** What one PDF's streams may decompress to in all, counted before pdf.js opens it (`document_too_large`). */
  maxDecodedBytes: number;
  /** Longest one document's extraction may run in its worker thread before the thread is stopped. */
  extractTimeoutMs: number;
  /** V8 heap of the extraction worker thread (its `resourceLimits`), in MiB. */
  extractHeapMb: number;
  /** How far the process's resident memory may grow while one document is extracted. */
  extractMemoryBytes: number;
}

export const DEFAULT_KNOWLEDGE_LIMITS: KnowledgeLimits = {
  maxUploadBytes: 10 * 1024 * 1024,
  maxFilesPerUpload: 20,
  maxTextChars: 2_000_000,
  maxPdfPages: 2_000,
  maxDecodedBytes: 256 * 1024 * 1024,
  extractTimeoutMs: 60_000,
  extractHeapMb: 256,
  extractMemoryBytes: 768 * 1024 * 1024,
};
