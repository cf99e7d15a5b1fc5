import { isDeepStrictEqual } from 'node:util';
import type { RunEvent } from '../../../src/core/records/run-event.js';
import type { Run } from '../../../src/core/records/run.js';
import { readSse, type SseFrame, type TestServer } from '../../helpers/start-test-server.js';

/**
 * N conversations with the demo "team" agent at once, over real HTTP: each sends its message twice with the
 * same request_id and once with another request_id, all three concurrently (so idempotency and "one active
 * run per thread" are raced), follows every run it learns of over SSE (parents, and children as soon as the
 * parent's stream announces them), then checks everything against the database.
 */
export interface TeamLoadReport {
  conversations: number;
  parentRuns: number;
  childRuns: number;
  completedParents: number;
  eventsStored: number;
  sseStreams: number;
  /** Stored events an SSE client did not receive (or received out of order / altered). */
  lostEvents: number;
  /** request_ids that own more than one run, plus threads that had two overlapping active runs. */
  duplicateRuns: number;
  busyRefusals: number;
  failures: string[];
  durationMs: number;
}

interface PostAnswer {
  status: number;
  body: {
    status?: string;
    run?: { id: string };
    error?: { code: string; details?: { active_run_id?: string | null } };
  };
}

async function listEvents(server: TestServer, runId: string): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  for (let after = 0; ;) {
    const page = await server.troupe.storage.events.list(runId, after, 1000);
    events.push(...page);
    if (page.length < 1000) return events;
    after = page.at(-1)?.seq ?? after;
  }
}

export async function runTeamLoad(server: TestServer, conversations: number): Promise<TeamLoadReport> {
  const started = performance.now();
  const failures: string[] = [];
  const streams = new Map<string, Promise<SseFrame[]>>();

  // Every run this client learns of is followed over SSE, children as soon as their parent announces them.
  const follow = (runId: string): void => {
    if (streams.has(runId)) return;
    streams.set(
      runId,
      server.api(`/api/agent/runs/${runId}/events`).then(async (response) => {
        if (response.status !== 200) throw new Error(`SSE for ${runId} answered ${response.status}`);
        return readSse(response, (frame) => {
          if (frame.event !== 'subagent_update') return;
          const update = JSON.parse(frame.data) as { payload: { run_id: string } };
          follow(update.payload.run_id);
        });
      }),
    );
  };

  const post = async (conversationId: string, content: string, requestId: string): Promise<PostAnswer> => {
    const response = await server.api(`/api/conversations/${conversationId}/messages`, {
      method: 'POST',
      body: JSON.stringify({ content, request_id: requestId }),
    });
    const answer = { status: response.status, body: (await response.json()) as PostAnswer['body'] };
    if (answer.body.run) follow(answer.body.run.id);
    return answer;
  };

  const created = await Promise.all(
    Array.from({ length: conversations }, async (_, index) => {
      const response = await server.api('/api/conversations', {
        method: 'POST',
        body: JSON.stringify({ agent_id: 'assistant', title: `load ${index}` }),
      });
      if (response.status !== 201)
        throw new Error(`creating conversation ${index} answered ${response.status}`);
      return ((await response.json()) as { conversation: { id: string; thread_id: string } }).conversation;
    }),
  );

  let busyRefusals = 0;
  const answers = await Promise.all(
    created.map(async (conversation, index) => {
      const [first, again, other] = await Promise.all([
        post(conversation.id, `Ask the team about load case ${index}`, `load-${index}-a`),
        post(conversation.id, `Ask the team about load case ${index}`, `load-${index}-a`),
        post(conversation.id, `team, second opinion on load case ${index}`, `load-${index}-b`),
      ]);
      return { conversation, first, again, other };
    }),
  );

  for (const { conversation, first, again, other } of answers) {
    const label = `conversation ${conversation.id}`;
    const replayed = [first, again].filter((answer) => answer.status === 202);
    const runIds = new Set(replayed.map((answer) => answer.body.run?.id));
    if (runIds.size > 1) failures.push(`${label}: one request_id answered with two runs`);
    if (replayed.length === 2 && replayed.filter((answer) => answer.body.status === 'started').length !== 1) {
      failures.push(
        `${label}: a replayed request_id was "started" ${replayed.filter((answer) => answer.body.status === 'started').length} times`,
      );
    }
    for (const answer of [first, again, other]) {
      if (answer.status === 202) continue;
      if (answer.status === 409 && answer.body.error?.code === 'run_busy') {
        busyRefusals += 1;
        if (!answer.body.error.details?.active_run_id)
          failures.push(`${label}: run_busy without active_run_id`);
        continue;
      }
      failures.push(`${label}: POST answered ${answer.status} ${JSON.stringify(answer.body)}`);
    }
  }

  // Wait for every stream (each closes after its run's `end`); streams opened meanwhile are awaited too.
  const frames = new Map<string, SseFrame[]>();
  while (frames.size < streams.size) {
    for (const [runId, stream] of [...streams]) {
      if (frames.has(runId)) continue;
      try {
        frames.set(runId, await stream);
      } catch (error) {
        failures.push(`stream ${runId}: ${error instanceof Error ? error.message : String(error)}`);
        frames.set(runId, []);
      }
    }
  }

  // The database view: every run of these conversations (parents) and their children.
  const { storage } = server.troupe;
  const parents: Run[] = [];
  const children: Run[] = [];
  let duplicateRuns = 0;
  for (const conversation of created) {
    const runs = (await storage.runs.listByConversation(conversation.id)).sort((a, b) =>
      a.created_at.localeCompare(b.created_at),
    );
    parents.push(...runs);
    const requestIds = runs.map((run) => run.request_id);
    duplicateRuns += requestIds.length - new Set(requestIds).size;
    // One active run per thread: each run starts no earlier than the previous one finished.
    for (let index = 1; index < runs.length; index++) {
      const previous = runs[index - 1];
      const current = runs[index];
      if (
        previous &&
        current &&
        (previous.finished_at === null || current.created_at < previous.finished_at)
      ) {
        duplicateRuns += 1;
        failures.push(
          `conversation ${conversation.id}: runs ${previous.id} and ${current.id} were active together`,
        );
      }
    }
    for (const run of runs) children.push(...(await storage.runs.listChildren(run.id)));
  }
  const childRequestIds = children.map((run) => run.request_id);
  duplicateRuns += childRequestIds.length - new Set(childRequestIds).size;

  let eventsStored = 0;
  let lostEvents = 0;
  let completedParents = 0;
  for (const run of parents) {
    if (run.status !== 'completed')
      failures.push(`parent run ${run.id} ended ${run.status}: ${JSON.stringify(run.error)}`);
    else completedParents += 1;
    const kids = children.filter((child) => child.created_by_run_id === run.id);
    if (kids.length !== 2) failures.push(`parent run ${run.id} has ${kids.length} children, expected 2`);
  }
  for (const run of children)
    if (run.status !== 'completed') failures.push(`child run ${run.id} ended ${run.status}`);
  for (const run of [...parents, ...children]) {
    const stored = await listEvents(server, run.id);
    eventsStored += stored.length;
    if (!stored.every((event, index) => event.seq === index + 1))
      failures.push(`run ${run.id}: stored seq not 1..n`);
    if (stored.at(-1)?.type !== 'end')
      failures.push(`run ${run.id}: last stored event is ${stored.at(-1)?.type}`);
    const received = frames.get(run.id);
    if (!received) {
      failures.push(`run ${run.id} was never announced to an SSE client`);
      lostEvents += stored.length;
      continue;
    }
    let matched = 0;
    for (const [index, event] of stored.entries()) {
      const frame = received[index];
      if (
        frame?.id === String(event.seq) &&
        frame.event === event.type &&
        isDeepStrictEqual(JSON.parse(frame.data), event)
      )
        matched += 1;
    }
    lostEvents += stored.length - matched;
    if (received.length !== stored.length)
      failures.push(`run ${run.id}: SSE delivered ${received.length} frames, ${stored.length} stored`);
  }

  return {
    conversations,
    parentRuns: parents.length,
    childRuns: children.length,
    completedParents,
    eventsStored,
    sseStreams: frames.size,
    lostEvents,
    duplicateRuns,
    busyRefusals,
    failures: failures.slice(0, 30),
    durationMs: Math.round(performance.now() - started),
  };
}
