import { TroupeError } from '../errors.js';
import type { AgentBackend, AgentConfig } from '../records/agent.js';
import type { Actor } from '../records/user.js';
import { isAdmin } from '../records/user.js';

function invalid(path: string, message: string): TroupeError {
  return new TroupeError('validation_failed', `Invalid input: ${path}: ${message}`, {
    details: { issues: [{ path, message, code: 'custom' }] },
  });
}

/**
 * What a config must be for its backend, and who may write it (docs/interoperability.md). A remote expert sends every
 * task it gets, as the user who delegates, to a URL outside this server, with stored credentials: only an
 * admin registers one or changes where it points. `config.a2a` on any other backend would be ignored,
 * which is a mistake worth a 400.
 */
export function remoteExpertConfigProblem(
  actor: Actor,
  backend: AgentBackend,
  config: AgentConfig,
): TroupeError | undefined {
  if (backend !== 'a2a') {
    return config.a2a === undefined
      ? undefined
      : invalid('config.a2a', 'only agents with backend "a2a" have one');
  }
  if (!isAdmin(actor))
    return new TroupeError('forbidden', 'Only an admin can register or change a remote A2A expert');
  if (config.a2a === undefined) return invalid('config.a2a', 'a remote A2A expert needs its card_url');
  return undefined;
}
