import { TroupeError } from '../../../core/errors.js';

/**
 * Turns a Node fs error into a TroupeError whose message names the path the model asked for. Node's own
 * messages carry the host's absolute path, which must not reach the model (tool errors are shown to it).
 */
export function workdirFsError(error: unknown, requestedPath: string): TroupeError {
  if (error instanceof TroupeError) return error;
  const code = fsErrorCode(error) ?? 'unknown error';
  const shown = displayPath(requestedPath);
  switch (code) {
    case 'ENOENT':
    case 'ENOTDIR':
      return new TroupeError('file_not_found', `File not found: ${shown}`, { cause: error });
    case 'EISDIR':
      return new TroupeError('tool_input_invalid', `${shown} is a directory, not a file`, { cause: error });
    case 'ELOOP':
      // Opens use O_NOFOLLOW: a symlink the descriptor walk did not resolve itself is never followed.
      return new TroupeError(
        'path_outside_workdir',
        `Path ${shown} is a symbolic link; symlinks are not followed`,
        {
          cause: error,
        },
      );
    case 'EEXIST':
      return new TroupeError('tool_input_invalid', `Cannot create ${shown}: a file is in the way`, {
        cause: error,
      });
    case 'EACCES':
    case 'EPERM':
      return new TroupeError('internal', `Permission denied: ${shown}`, { cause: error });
    default:
      return new TroupeError('internal', `Cannot access ${shown} (${code})`, {
        cause: error,
      });
  }
}

export function fsErrorCode(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string') {
    return error.code;
  }
  return undefined;
}

/** The requested path as the model wrote it, quoted, with `.` for the workdir itself. */
export function displayPath(requestedPath: string): string {
  return JSON.stringify(requestedPath === '' ? '.' : requestedPath);
}
