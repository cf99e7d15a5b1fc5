export interface Project {
  id: string;
  user_id: string;
  name: string;
  /** Absolute path of the project's real directory on disk; every workdir tool is confined to it. */
  workdir: string;
  created_at: string;
}
