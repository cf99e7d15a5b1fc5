/**
 * Runs one command in the sandbox the way a server that is not root does (`user` mode: bubblewrap runs as
 * this process's own uid), for tests that run as root and start this script as another uid. Usage:
 * `node --import tsx user-mode-sandbox.ts WORKDIR COMMAND`; prints the SandboxResult as JSON.
 */
import { createBwrapSandbox } from '../../../src/runtime/tools/execute/bwrap-sandbox.js';
import { locateSandboxTools } from '../../../src/runtime/tools/execute/locate-sandbox-tools.js';
import { TEST_LIMITS } from './sandbox-fixture.js';

const [workdir, command] = process.argv.slice(2);
const located = locateSandboxTools(undefined);
if (workdir === undefined || command === undefined || !('tools' in located)) {
  process.stderr.write('usage: user-mode-sandbox WORKDIR COMMAND (needs bubblewrap)\n');
  process.exit(2);
}
const sandbox = createBwrapSandbox({ tools: located.tools, sandboxUid: process.getuid?.() ?? 0 });
const result = await sandbox.run({ command, workdir, network: false, limits: TEST_LIMITS });
process.stdout.write(JSON.stringify(result));
