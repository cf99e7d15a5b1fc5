/**
 * The SSE subscribers of the fan-out benchmark, in a process of their own (as browsers would be): reads one
 * JSON line `{url, token, runs: string[], perRun}` on stdin, opens `perRun` streams per run, prints
 * `connected` once every stream has its response headers, and writes what each stream received (seq and
 * receive time, epoch ms) to `--out` when all streams have ended.
 */
import { writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { readSseFrames } from '../../test/helpers/read-sse-frames.js';
import { epochMs } from '../lib/stats.js';

interface Plan {
  url: string;
  token: string;
  runs: string[];
  perRun: number;
}

export interface StreamRecord {
  run_id: string;
  connected_at: number;
  status: number;
  /** [seq, receivedAt] per frame, in arrival order. */
  frames: [number, number][];
  error?: string;
}

const { values } = parseArgs({ options: { out: { type: 'string' } } });
const lines = createInterface({ input: process.stdin });
process.stdout.write('ready\n');
const first = await new Promise<string>((resolve) => lines.once('line', resolve));
lines.close();
const plan = JSON.parse(first) as Plan;

let connected = 0;
const total = plan.runs.length * plan.perRun;
const streams = plan.runs.flatMap((runId) =>
  Array.from({ length: plan.perRun }, async (): Promise<StreamRecord> => {
    const record: StreamRecord = { run_id: runId, connected_at: 0, status: 0, frames: [] };
    try {
      const response = await fetch(`${plan.url}/api/agent/runs/${runId}/events`, {
        headers: { authorization: `Bearer ${plan.token}`, accept: 'text/event-stream' },
      });
      record.connected_at = epochMs();
      record.status = response.status;
      if (++connected === total) process.stdout.write('connected\n');
      if (!response.body) throw new Error('no body');
      await readSseFrames(response.body as ReadableStream<Uint8Array>, (frames) => {
        const at = epochMs();
        for (const frame of frames) record.frames.push([Number(frame.id), at]);
      });
    } catch (error) {
      record.error = error instanceof Error ? error.message : String(error);
      if (record.connected_at === 0 && ++connected === total) process.stdout.write('connected\n');
    }
    return record;
  }),
);
const records = await Promise.all(streams);
const json = JSON.stringify(records);
if (values.out) writeFileSync(values.out, json);
else process.stdout.write(`${json}\n`);
process.exit(0);
