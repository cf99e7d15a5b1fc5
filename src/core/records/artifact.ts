/** A workdir file a run presented to the user (`present_artifacts`), listed per conversation. */
export interface Artifact {
  id: string;
  run_id: string;
  conversation_id: string;
  user_id: string;
  /** The `present_artifacts` call that presented it. */
  tool_call_id: string;
  /** Relative to the project workdir, `/`-separated; the file is read from there at download time. */
  path: string;
  title: string | null;
  /** Bytes when it was presented; the download sends what the file holds then. */
  size: number;
  content_type: string;
  created_at: string;
}
