import { findServiceBinaries } from '../../test/helpers/services/services.js';

/** Every suite `npm run bench` knows, in the order a full run takes them (`bench/suites/<name>.ts`). */
export const SUITES = [
  'dispatch',
  'cost',
  'fanout',
  'http',
  'knowledge',
  'cancel',
  'providers',
  'scale-out',
  'console',
] as const;
export type SuiteName = (typeof SUITES)[number];

/** The suites `--only a,b` names (all of them without it); an unknown name is an error that lists the known ones. */
export function selectSuites(only: string | undefined): SuiteName[] {
  if (only === undefined) return [...SUITES];
  const names = only.split(',').map((name) => name.trim());
  for (const name of names) {
    if (!(SUITES as readonly string[]).includes(name))
      throw new Error(`unknown suite ${name}; choose from ${SUITES.join(', ')}`);
  }
  return names as SuiteName[];
}

/** Why a suite cannot run on this machine, or undefined when it can (only scale-out needs outside binaries). */
export function unavailableReason(name: SuiteName): string | undefined {
  if (name !== 'scale-out') return undefined;
  const found = findServiceBinaries();
  return 'missing' in found ? `PostgreSQL and Redis are needed: ${found.missing}` : undefined;
}

/** Whether a suite needs the bench-only dependencies of bench/package.json (deepagents, autocannon). */
export function needsBenchDependencies(name: SuiteName): boolean {
  return name === 'dispatch' || name === 'cost' || name === 'http' || name === 'scale-out';
}
