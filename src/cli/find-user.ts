import { TroupeError } from '../core/errors.js';
import type { User } from '../core/records/user.js';
import type { Troupe } from '../create-troupe.js';

export async function findUser(troupe: Troupe, name: string): Promise<User> {
  const user = await troupe.storage.users.getByName(name);
  if (!user) throw new TroupeError('user_not_found', `No user named "${name}"`);
  return user;
}
