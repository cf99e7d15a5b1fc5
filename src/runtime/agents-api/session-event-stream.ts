import { randomBytes } from 'node:crypto';
import type { RunView } from '../../core/records/run.js';
import { isTerminalStatus } from '../../core/records/run.js';
import type { Actor } from '../../core/records/user.js';
import type { RunServiceApi } from '../runs/run-service-api.js';
import type { ApiSession } from './agents-api-objects.js';
import type { SessionAccess } from './session-access.js';
import type { SessionWakeups } from './session-wakeups.js';
import { TurnEventTranslator, type SessionEventBody } from './turn-event-translator.js';
import { apiUsage, runToTurn } from './turn-object.js';

/** How often a stream looks for turns this process did not start (the console's, another server's). */
export const DEFAULT_SESSION_POLL_MS = 1000;

export type SessionEvent = SessionEventBody & { event_id: string };

export interface SessionStreamOptions {
  actor: Actor;
  sessionId: string;
  access: SessionAccess;
  runs: RunServiceApi;
  wakeups: SessionWakeups;
  signal: AbortSignal;
  pollMs?: number;
}

const SESSION_EVENT = {
  idle: 'agent.session.idle',
  in_progress: 'agent.session.in_progress',
  requires_action: 'agent.session.requires_action',
  failed: 'agent.session.failed',
} as const;

const TURN_END = {
  completed: 'agent.session.turn.completed',
  failed: 'agent.session.turn.failed',
  interrupted: 'agent.session.turn.failed',
  cancelled: 'agent.session.turn.cancelled',
} as const;

function sessionEvent(session: ApiSession): SessionEventBody {
  return { type: SESSION_EVENT[session.status], session };
}

/**
 * The live events of a session (`GET /v1/agents/sessions/{id}/events`, docs/interoperability.md#openai-agents-api).
 * Opening reads the session (a stranger's id fails here, before any byte is sent) and remembers its turns;
 * the stream then says the session's status, follows its running turn if there is one, and every turn started
 * after it opened: `turn.created`, `session.in_progress`, `turn.in_progress`, the turn's items, subagents and
 * `session.requires_action` while it waits for a human, then `turn.completed|failed|cancelled` and the
 * session's status again. It stays open until the client leaves.
 */
export async function openSessionStream(
  options: SessionStreamOptions,
): Promise<AsyncGenerator<SessionEvent>> {
  const { actor, sessionId, access, runs, signal } = options;
  const initial = await access.load(actor, sessionId);
  const seen = new Set(initial.runs.filter((run) => isTerminalStatus(run.status)).map((run) => run.id));
  const nonce = randomBytes(6).toString('hex');
  let counter = 0;
  const stamp = (body: SessionEventBody): SessionEvent => ({
    ...body,
    event_id: `evt_${nonce}_${++counter}`,
  });

  async function currentSession(): Promise<ApiSession> {
    return access.toSession(await access.load(actor, sessionId));
  }

  async function* followTurn(run: RunView): AsyncGenerator<SessionEvent> {
    seen.add(run.id);
    const turn = runToTurn(run, sessionId, null);
    yield stamp({ type: 'agent.session.turn.created', session_id: sessionId, turn_id: run.id, turn });
    yield stamp(sessionEvent(await currentSession()));
    yield stamp({ type: 'agent.session.turn.in_progress', session_id: sessionId, turn_id: run.id, turn });
    const translator = new TurnEventTranslator(sessionId, run.id, run.agent_id);
    const events = await runs.streamEvents(actor, run.id, 0, signal);
    for await (const event of events) {
      // Read before the call is announced: a client may answer it as soon as it sees it (the SDK's tool
      // handlers do), and the session must still say what it waited for.
      const waiting =
        event.type === 'approval_required' || event.type === 'question_required'
          ? await currentSession()
          : undefined;
      for (const body of translator.translate(event)) yield stamp(body);
      if (waiting) {
        yield stamp(sessionEvent(waiting));
      } else if (event.type === 'tool_result' && event.payload.closed_by_run_end !== true) {
        // A decided approval or an answered question resumes the turn: say the session is back at work.
        const session = await currentSession();
        if (session.status === 'in_progress') yield stamp(sessionEvent(session));
      }
    }
    if (signal.aborted) return;
    const ended = await runs.getRun(actor, run.id);
    const status = isTerminalStatus(ended.status) ? ended.status : 'failed';
    yield stamp({
      type:
        status === 'completed'
          ? TURN_END.completed
          : TURN_END[status === 'cancelled' ? 'cancelled' : 'failed'],
      session_id: sessionId,
      turn_id: run.id,
      turn: runToTurn(ended, sessionId, null),
      usage: apiUsage(ended.usage),
    });
    yield stamp(sessionEvent(await currentSession()));
  }

  /** The oldest turn of the session this stream has not followed, if any. */
  async function nextTurn(): Promise<RunView | undefined> {
    const loaded = await access.load(actor, sessionId);
    return loaded.runs.find((run) => !seen.has(run.id));
  }

  async function* generate(): AsyncGenerator<SessionEvent> {
    yield stamp(sessionEvent(access.toSession(initial)));
    while (!signal.aborted) {
      const run = await nextTurn();
      if (run) {
        yield* followTurn(run);
        continue;
      }
      await options.wakeups.wait(sessionId, options.pollMs ?? DEFAULT_SESSION_POLL_MS, signal);
    }
  }

  return generate();
}
