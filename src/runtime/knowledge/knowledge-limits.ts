/** Bounds of what one upload may cost; the request size itself is `TROUPE_KNOWLEDGE_MAX_UPLOAD_BYTES`. */
export interface KnowledgeLimits {
  /** Whole upload request (every file of a multipart upload together). */
  maxUploadBytes: number;
  /** Files in one upload. */
  maxFilesPerUpload: number;
  /** Extracted text of one document, in characters: what a small PDF may inflate to is bounded too. */
  maxTextChars: number;
  maxPdfPages: number;
}

export const DEFAULT_KNOWLEDGE_LIMITS: KnowledgeLimits = {
  maxUploadBytes: 10 * 1024 * 1024,
  maxFilesPerUpload: 20,
  maxTextChars: 2_000_000,
  maxPdfPages: 2_000,
};
