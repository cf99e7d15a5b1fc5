/**
 * The deepagents contenders of the dispatch suite, in a process of their own. LangGraph installs an
 * AsyncLocalStorage when it loads and runs every invoke inside it, which turns on Node's promise hooks for the
 * whole process: in Troupe's process that would tax each of Troupe's promises too, a cost no Troupe deployment
 * pays. Commands arrive as JSON lines on stdin; each answer is one JSON line on stdout (progress: stderr).
 */
import { createInterface } from 'node:readline';
import { profileCpu } from './lib/cpu-profile.js';
import { createDeepAgentsSide, type CheckpointerKind, type DeepAgentsSide } from './lib/deepagents.js';
import { startSqliteProbe } from './lib/sqlite-probe.js';
import { sqlSummary } from './lib/sql-summary.js';
import { collectGarbage } from './lib/suite.js';
import type { DeepAgentsCommand } from './lib/deepagents-remote.js';

const sqlitePath = process.argv[2];
if (!sqlitePath) throw new Error('usage: deepagents-process.ts SQLITE_FILE');

const sides = new Map<CheckpointerKind, DeepAgentsSide>();
for (const kind of ['none', 'memory', 'sqlite'] as const) {
  sides.set(kind, await createDeepAgentsSide(kind, sqlitePath));
}
let sequence = 0;

function sideOf(kind: CheckpointerKind): DeepAgentsSide {
  const side = sides.get(kind);
  if (!side) throw new Error(`no deepagents side ${kind}`);
  return side;
}

async function once(side: DeepAgentsSide, kind: 'task' | 'plain'): Promise<{ wall: number; cpu: number }> {
  const input = kind === 'plain' ? `plain question ${sequence++}` : `question ${sequence++}`;
  const cpu = process.cpuUsage();
  const started = performance.now();
  const answer = await side.invoke(input, `thread-${side.kind}-${sequence}`);
  const wall = performance.now() - started;
  const used = process.cpuUsage(cpu);
  const expected =
    kind === 'plain' ? `Plain answer to ${input}` : `Main got: Helper report on <Investigate: ${input}>`;
  if (answer !== expected) throw new Error(`deepagents (${side.kind}) answered ${JSON.stringify(answer)}`);
  return { wall, cpu: (used.user + used.system) / 1000 };
}

const answer = (value: unknown) => process.stdout.write(`${JSON.stringify(value)}\n`);

answer({ ready: true, version: sideOf('sqlite').version });
for await (const line of createInterface({ input: process.stdin })) {
  const command = JSON.parse(line) as DeepAgentsCommand;
  if (command.op === 'once') {
    answer(await once(sideOf(command.side), command.kind));
  } else if (command.op === 'profile') {
    collectGarbage();
    const probe = startSqliteProbe();
    const side = sideOf(command.side);
    const { breakdown } = await profileCpu(async () => {
      for (let i = 0; i < command.runs; i++) await once(side, 'task');
    });
    answer({ breakdown, sql: sqlSummary(probe.snapshot(), command.runs) });
    probe.stop();
  } else {
    for (const side of sides.values()) side.close();
    answer({ closed: true });
    process.exit(0);
  }
}
