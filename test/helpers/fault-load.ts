import pg from 'pg';
import type { Run } from '../../src/core/records/run.js';
import { delay } from './eventually.js';
import type { FakeModelResponse, RecordedRequest } from './models/fake-model-server.js';
import type { useScaleOutCluster } from './scale-out-cluster.js';
import { readSse, type SseFrame } from './start-test-server.js';

/*
 * The load the scale-out fault suite keeps up while a server goes away: root runs of an agent that either
 * dispatches a `task` to a child and waits for it, or streams a slow answer; every root followed by an SSE
 * client that resumes with Last-Event-ID, as a browser's EventSource does; and a probe that keeps sending new
 * requests, recording what each one was answered.
 */

type Cluster = ReturnType<typeof useScaleOutCluster>;

/** The model's delay before each slow answer: runs are live while the fault happens. */
const MODEL_DELAY_MS = 2_500;
const FOLLOW_LIMIT_MS = 240_000;

/** The job marker of a request: `job <n> …` in the root's message, `CHILD job <n>` in its child's task. */
function jobOf(request: RecordedRequest): string {
  const messages = (request.body.messages ?? []) as { role: string; content: unknown }[];
  const user = messages.find((message) => message.role === 'user');
  const text = typeof user?.content === 'string' ? user.content : JSON.stringify(user?.content ?? '');
  return /job \d+/.exec(text)?.[0] ?? 'none';
}

/**
 * The agent `faulty` (ROLE:faulty): "job N dispatch" calls `task` once and answers after its child; "job N slow"
 * answers after MODEL_DELAY_MS. Children answer after MODEL_DELAY_MS.
 */
export function faultyModel(role: string, turn: number, request: RecordedRequest): FakeModelResponse {
  const job = jobOf(request);
  if (role === 'child') return { delayMs: MODEL_DELAY_MS, text: `child of ${job} done` };
  const messages = JSON.stringify(request.body.messages ?? []);
  if (turn === 0 && messages.includes('dispatch')) {
    return {
      toolCalls: [{ name: 'task', args: { subagent_slug: 'general-purpose', description: `CHILD ${job}` } }],
    };
  }
  return { delayMs: turn === 0 ? MODEL_DELAY_MS : 0, text: `${job} done` };
}

/** How many model requests each job made, by role: `job 3/faulty` → 2 for a dispatch. */
export function requestsPerJob(
  requests: readonly RecordedRequest[],
  roleOf: (request: RecordedRequest) => string,
) {
  const counts = new Map<string, number>();
  for (const request of requests) {
    const key = `${jobOf(request)}/${roleOf(request)}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/**
 * A job's model requests, for a failure message: when each arrived (relative to `since`), by which role, and how
 * far its conversation had got (message count, last message's role), so a repeated turn says which one it was.
 */
export function describeJobRequests(
  requests: readonly RecordedRequest[],
  roleOf: (request: RecordedRequest) => string,
  job: string,
  since: number,
): string {
  return requests
    .filter((request) => jobOf(request) === job)
    .map((request) => {
      const messages = (request.body.messages ?? []) as { role: string }[];
      return `+${request.at - since} ms ${roleOf(request)}: ${messages.length} messages, last ${messages.at(-1)?.role ?? 'none'}`;
    })
    .join('; ');
}

export interface Followed {
  frames: SseFrame[];
  /** Connections after the first: each resumed with Last-Event-ID. */
  reconnects: number;
  /** The client dropped its connection before the run's `end` (`drop` in `follow`). */
  droppedLive: boolean;
}

/**
 * Follows a run's events to its `end`, reconnecting with Last-Event-ID whenever the stream breaks. When `drop`
 * resolves, the client drops its connection once, as a browser whose network failed does, and resumes.
 */
export async function follow(cluster: Cluster, runId: string, drop?: Promise<void>): Promise<Followed> {
  const frames: SseFrame[] = [];
  let reconnects = -1;
  let current: AbortController | undefined;
  let droppedLive = false;
  void drop?.then(() => {
    droppedLive = frames.at(-1)?.event !== 'end';
    current?.abort();
  });
  const deadline = Date.now() + FOLLOW_LIMIT_MS;
  while (Date.now() < deadline && frames.at(-1)?.event !== 'end') {
    reconnects += 1;
    const last = frames.at(-1)?.id;
    current = new AbortController();
    const signal = AbortSignal.any([current.signal, AbortSignal.timeout(FOLLOW_LIMIT_MS)]);
    try {
      const response = await cluster.api(`/api/agent/runs/${runId}/events`, {
        headers: last === undefined ? {} : { 'Last-Event-ID': last },
        signal,
      });
      if (response.status === 204) break;
      if (response.status === 200) await readSse(response, (frame) => frames.push(frame));
      else await response.text();
    } catch {
      // A connection the server or the client dropped: resume after a pause, as EventSource does.
    }
    if (frames.at(-1)?.event !== 'end') await delay(500);
  }
  return { frames, reconnects: Math.max(0, reconnects), droppedLive };
}

export interface ProbeAnswer {
  at: number;
  what: 'conversation' | 'message' | 'run' | 'events';
  status: number;
  code: string | undefined;
  retryAfter: string | null;
}

/** Probes the API every `intervalMs` until stopped: a new chat (conversation, message), a run read, an SSE open. */
export function startProbe(cluster: Cluster, knownRunId: string, intervalMs = 250) {
  const answers: ProbeAnswer[] = [];
  const started: Run[] = [];
  let stopped = false;
  const record = async (what: ProbeAnswer['what'], response: Response): Promise<unknown> => {
    const text = what === 'events' && response.status === 200 ? '' : await response.text();
    let body: unknown;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      body = undefined;
    }
    const code = (body as { error?: { code?: string } } | undefined)?.error?.code;
    answers.push({
      at: Date.now(),
      what,
      status: response.status,
      code,
      retryAfter: response.headers.get('retry-after'),
    });
    return body;
  };
  const once = async (): Promise<void> => {
    const created = await cluster.api('/api/conversations', {
      method: 'POST',
      body: JSON.stringify({ agent_id: 'faulty' }),
    });
    const conversation = (await record('conversation', created)) as
      { conversation?: { id: string } } | undefined;
    if (conversation?.conversation) {
      const posted = await cluster.api(`/api/conversations/${conversation.conversation.id}/messages`, {
        method: 'POST',
        body: JSON.stringify({ content: `job ${9000 + answers.length} slow` }),
      });
      const run = (await record('message', posted)) as { run?: Run } | undefined;
      if (run?.run) started.push(run.run);
    }
    await record('run', await cluster.api(`/api/agent/runs/${knownRunId}`));
    const controller = new AbortController();
    const events = await cluster.api(`/api/agent/runs/${knownRunId}/events`, { signal: controller.signal });
    await record('events', events);
    controller.abort();
  };
  const loop = (async () => {
    while (!stopped) {
      await once().catch(() => undefined);
      await delay(intervalMs);
    }
  })();
  return {
    answers,
    started,
    async stop(): Promise<void> {
      stopped = true;
      await loop;
    },
  };
}

/** Every run of the cluster's database with the fields the fault suite checks. */
export async function allRuns(databaseUrl: string) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{
      id: string;
      status: string;
      attempt: number;
      conversation_id: string;
      created_by_run_id: string | null;
      worker_id: string | null;
      error: unknown;
    }>('SELECT id, status, attempt, conversation_id, created_by_run_id, worker_id, error FROM runs');
    return rows;
  } finally {
    await client.end();
  }
}

/**
 * Traces of a write that stopped halfway: a conversation's messages without any run on its thread (a message
 * posted, its run never created), a run without its `metadata` event or with other than one `end`.
 */
export async function halfWritten(databaseUrl: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const orphans = await client.query<{ thread_id: string }>(
      `SELECT DISTINCT m.thread_id FROM thread_messages m
         JOIN conversations c ON c.thread_id = m.thread_id
        WHERE NOT EXISTS (SELECT 1 FROM runs r WHERE r.thread_id = m.thread_id)`,
    );
    const unevenEvents = await client.query<{ id: string; run_type: string; types: string }>(
      `SELECT r.id, r.run_type, (SELECT string_agg(e.type, ',' ORDER BY e.seq) FROM run_events e
                                   WHERE e.run_id = r.id) AS types
         FROM runs r
        WHERE (SELECT count(*) FROM run_events e WHERE e.run_id = r.id AND e.type = 'end') <> 1
           OR NOT EXISTS (SELECT 1 FROM run_events e WHERE e.run_id = r.id AND e.type = 'metadata')`,
    );
    return [
      ...orphans.rows.map((row) => `messages without a run on thread ${row.thread_id}`),
      ...unevenEvents.rows.map(
        (row) => `${row.run_type} run ${row.id} without one metadata and one end: ${row.types}`,
      ),
    ];
  } finally {
    await client.end();
  }
}
