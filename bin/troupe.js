#!/usr/bin/env node
// The `troupe` command: runs the TypeScript sources through tsx, so a clone works without a build step.
import { register } from 'tsx/esm/api';

register();
const { runMain } = await import('../src/main.ts');
const exitCode = await runMain(process.argv.slice(2));
if (exitCode !== undefined) process.exit(exitCode);
