export interface FileLimits {
  /** Largest file one attachment upload may carry. */
  attachmentMaxBytes: number;
  /** Most files one attachment upload (and one message) may carry. */
  attachmentMaxFiles: number;
  /** Largest artifact the download route sends. */
  artifactMaxDownloadBytes: number;
}

export const DEFAULT_FILE_LIMITS: FileLimits = {
  attachmentMaxBytes: 10 * 1024 * 1024,
  attachmentMaxFiles: 10,
  artifactMaxDownloadBytes: 100 * 1024 * 1024,
};
