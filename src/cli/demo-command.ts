import { seedDemo } from '../runtime/seed-demo.js';
import { withTroupe, type CliDeps } from './cli-support.js';
import { issueStartupToken } from './startup-token.js';

export function demoCommand(deps: CliDeps): Promise<number> {
  return withTroupe(deps, 'api', async (troupe) => {
    const { user, seeded } = await seedDemo(troupe.storage);
    if (!user) {
      console.error('troupe: this database already has users but no "demo" user; nothing was seeded');
      return 1;
    }
    console.log(seeded ? 'Seeded the demo user and agents.' : 'The demo data already exists.');
    console.log(`Token for "${user.name}": ${await issueStartupToken(troupe, user)}`);
    return 0;
  });
}
