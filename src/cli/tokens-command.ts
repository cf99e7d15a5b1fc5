import { parseArgs } from 'node:util';
import { TroupeError } from '../core/errors.js';
import { findUser } from './find-user.js';
import { CliUsageError, withTroupe, type CliDeps } from './cli-support.js';

export function tokensCommand(deps: CliDeps, argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { user: { type: 'string' }, name: { type: 'string', default: 'cli' } },
  });
  const [action, tokenId] = positionals;
  if (!values.user) throw new CliUsageError('tokens needs --user NAME');
  if (action !== 'create' && action !== 'list' && action !== 'revoke') {
    throw new CliUsageError('tokens takes "create", "list" or "revoke TOKEN_ID"');
  }
  const userName = values.user;
  return withTroupe(deps, 'api', async (troupe) => {
    const user = await findUser(troupe, userName);
    if (action === 'create') {
      const { token, record } = await troupe.auth.issueToken(user.id, values.name);
      console.log(`Token ${record.id} for "${user.name}" (shown once): ${token}`);
      return 0;
    }
    if (action === 'list') {
      for (const token of await troupe.storage.tokens.listForUser(user.id)) {
        const state = token.revoked_at ? `revoked ${token.revoked_at}` : 'active';
        console.log(
          `${token.id}\t${token.prefix}…\t${token.name}\t${state}\tlast used ${token.last_used_at ?? 'never'}`,
        );
      }
      return 0;
    }
    if (!tokenId) throw new CliUsageError('tokens revoke needs a TOKEN_ID');
    if (!(await troupe.auth.revokeToken(user.id, tokenId))) {
      throw new TroupeError('token_not_found', `"${user.name}" has no active token ${tokenId}`);
    }
    console.log(`Revoked ${tokenId}.`);
    return 0;
  });
}
