/** A file uploaded to a conversation; it lives under `uploads/` in the conversation's project workdir. */
export interface Attachment {
  id: string;
  conversation_id: string;
  user_id: string;
  /** The sanitised file name (what the file is called on disk). */
  name: string;
  /** Relative to the project workdir, e.g. `uploads/report.pdf`. */
  path: string;
  size: number;
  content_type: string;
  created_at: string;
}
