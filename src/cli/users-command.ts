import { parseArgs } from 'node:util';
import { CliUsageError, withTroupe, type CliDeps } from './cli-support.js';

export function usersCommand(deps: CliDeps, argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { admin: { type: 'boolean', default: false } },
  });
  const [action, name] = positionals;
  if (action !== 'list' && action !== 'create')
    throw new CliUsageError('users takes "list" or "create NAME"');
  if (action === 'create' && !name) throw new CliUsageError('users create needs a NAME');
  return withTroupe(deps, 'api', async (troupe) => {
    if (action === 'list') {
      for (const user of await troupe.storage.users.list())
        console.log(`${user.id}\t${user.role}\t${user.name}`);
      return 0;
    }
    const user = await troupe.auth.createUser(name ?? '', values.admin ? 'admin' : 'member');
    const { token } = await troupe.auth.issueToken(user.id, 'cli');
    console.log(`Created ${user.role} "${user.name}" (${user.id}).`);
    console.log(`Token (shown once): ${token}`);
    return 0;
  });
}
