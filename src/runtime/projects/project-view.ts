import path from 'node:path';
import type { Project } from '../../core/records/project.js';

/** A project as the API shows it. */
export interface ProjectView {
  id: string;
  user_id: string;
  name: string;
  /** Relative to the server's data dir (`workdirs/prj_…`); null when it lies elsewhere. */
  workdir: string | null;
  created_at: string;
}

/**
 * What the API shows of a project: never the host path of its workdir, which tells a member how the host is
 * laid out (README "Security"), only where it sits in the data dir.
 */
export function projectView(project: Project, dataDir: string): ProjectView {
  const relative = path.relative(path.resolve(dataDir), project.workdir);
  const inside = relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
  return {
    id: project.id,
    user_id: project.user_id,
    name: project.name,
    workdir: inside ? relative.split(path.sep).join('/') : null,
    created_at: project.created_at,
  };
}
