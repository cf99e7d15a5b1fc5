import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { AGENT_VISIBILITIES, type AgentVisibility } from '../core/records/agent.js';
import { TroupeError } from '../core/errors.js';
import type { SavedSkill } from '../runtime/skills/skill-service.js';
import { findUser } from './find-user.js';
import { CliUsageError, withTroupe, type CliDeps } from './cli-support.js';

/**
 * `troupe skills add DIR|FILE [--user NAME] [--visibility V] [--replace]` installs a skill folder or a
 * `.zip`/`.tar.gz` archive for a user, through the same checks as an upload; `troupe skills list [--user NAME]`
 * lists the skills that user can use.
 */
export function skillsCommand(deps: CliDeps, argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      user: { type: 'string', default: 'demo' },
      visibility: { type: 'string' },
      replace: { type: 'boolean', default: false },
    },
  });
  const [action, source, ...extra] = positionals;
  if (
    action === 'list' ? source !== undefined : action !== 'add' || source === undefined || extra.length > 0
  ) {
    throw new CliUsageError('skills takes "add DIR|FILE" or "list"');
  }
  const visibility = values.visibility;
  if (visibility !== undefined && !(AGENT_VISIBILITIES as readonly string[]).includes(visibility)) {
    throw new CliUsageError('--visibility must be private, shared or public');
  }
  return withTroupe(deps, 'api', async (troupe) => {
    const user = await findUser(troupe, values.user);
    if (action === 'list') {
      for (const skill of await troupe.skills.list(user)) {
        console.log(`${skill.name}\t${skill.visibility}\t${skill.file_count} files\t${skill.description}`);
      }
      return 0;
    }
    const target = path.resolve(source ?? '.');
    const stats = await stat(target).catch(() => {
      throw new TroupeError('file_not_found', `No such file or folder: ${target}`);
    });
    const options = {
      replace: values.replace,
      ...(visibility ? { visibility: visibility as AgentVisibility } : {}),
    };
    let result: SavedSkill;
    if (stats.isDirectory()) {
      result = await troupe.skills.createFromFolder(user, target, '.', options);
    } else {
      const limit = troupe.config.skillLimits.maxArchiveBytes;
      if (stats.size > limit)
        throw new TroupeError(
          'payload_too_large',
          `${target} is larger than the ${limit}-byte archive limit`,
        );
      result = await troupe.skills.createFromArchive(user, new Uint8Array(await readFile(target)), options);
    }
    const { skill, created } = result;
    console.log(
      `${created ? 'Added' : 'Updated'} skill "${skill.name}" for ${user.name} (${skill.id}, ${skill.file_count} files, ${skill.visibility}).`,
    );
    return 0;
  });
}
