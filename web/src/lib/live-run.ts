import type { RunEvent, RunStatus, SubagentUpdatePayload, TokenUsage, UserQuestion } from '../api/types.ts';
import { compactionNotice, modelNotice } from './model-notice.ts';
import { verdictFromEvent, type VerdictView } from './verdict.ts';
import type { ToolItem, ToolResult, TranscriptItem } from './transcript-items.ts';

export interface PendingApproval {
  toolCallId: string;
  name: string;
  args: unknown;
}

/** An `ask_user_question` call waiting for the user's answers. */
export interface PendingQuestion {
  toolCallId: string;
  questions: UserQuestion[];
}

export interface RunEnd {
  status: RunStatus;
  output: string | null;
  error: { type?: string; message: string } | null;
  usage: TokenUsage | null;
}

/**
 * A run as seen through its event stream: everything from seq 1 to `lastSeq` folded into transcript items.
 * It is plain JSON so it can be kept in sessionStorage and a reloaded page continues from `lastSeq`.
 */
export interface LiveRun {
  runId: string;
  lastSeq: number;
  items: TranscriptItem[];
  approvals: PendingApproval[];
  /** Absent in views saved before questions existed: read it as empty. */
  questions?: PendingQuestion[];
  model: string | null;
  end: RunEnd | null;
  /**
   * The latest `subagent_update` per child run: a reloaded page resumes after them, so the status panel is
   * rebuilt from here (and from the panel endpoint, when the server has it).
   */
  subagents: Record<string, SubagentUpdatePayload>;
  /** The latest verdict per judged child run (absent in views saved before verdicts existed). */
  verdicts?: Record<string, VerdictView>;
}

export function emptyLiveRun(runId: string): LiveRun {
  return {
    runId,
    lastSeq: 0,
    items: [],
    approvals: [],
    questions: [],
    model: null,
    end: null,
    subagents: {},
    verdicts: {},
  };
}

const str = (value: unknown): string => {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return '';
};

function runError(value: unknown): RunEnd['error'] {
  if (value == null) return null;
  if (typeof value === 'string') return { message: value };
  if (typeof value === 'object') {
    const record = value as Record<string, unknown>;
    return { type: str(record.type ?? record.code) || undefined, message: str(record.message) };
  }
  return { message: str(value) };
}

/**
 * Folds one event into the view. Pure; an event at or below `lastSeq` is a duplicate (a resumed stream may
 * overlap what was stored) and changes nothing, so replaying any prefix twice is harmless.
 */
export function applyRunEvent(view: LiveRun, event: RunEvent): LiveRun {
  if (event.seq <= view.lastSeq) return view;
  const next: LiveRun = { ...view, lastSeq: event.seq };
  switch (event.type) {
    case 'metadata':
      next.model = str(event.payload.model) || null;
      break;
    case 'message_delta': {
      const text = str(event.payload.text);
      if (text === '') break;
      const last = view.items.at(-1);
      next.items =
        last?.kind === 'text'
          ? [...view.items.slice(0, -1), { kind: 'text', text: last.text + text }]
          : [...view.items, { kind: 'text', text }];
      break;
    }
    case 'tool_call': {
      const id = str(event.payload.tool_call_id);
      const call: ToolItem = {
        kind: 'tool',
        toolCallId: id,
        name: str(event.payload.name),
        args: event.payload.args,
      };
      // A call announced again (a new attempt of the run resumes a step whose call was already streamed, e.g.
      // after an approval or a lost worker) is the same call: one group in the transcript, not two.
      const known = view.items.some((item) => item.kind === 'tool' && item.toolCallId === id);
      next.items = known
        ? view.items.map((item) =>
            item.kind === 'tool' && item.toolCallId === id
              ? { ...item, name: call.name, args: call.args }
              : item,
          )
        : [...view.items, call];
      break;
    }
    case 'tool_result': {
      const id = str(event.payload.tool_call_id);
      const { output, is_error: isError, refusal, outcome } = event.payload;
      const result: ToolResult = {
        output,
        isError: isError === true,
        ...(refusal ? { refusal } : {}),
        ...(outcome === 'unknown' ? { outcome: 'unknown' as const } : {}),
      };
      let matched = false;
      next.items = view.items.map((item) => {
        if (item.kind !== 'tool' || item.toolCallId !== id) return item;
        matched = true;
        return { ...item, result };
      });
      if (!matched) {
        next.items = [
          ...next.items,
          { kind: 'tool', toolCallId: id, name: str(event.payload.name), args: undefined, result },
        ];
      }
      next.approvals = view.approvals.filter((approval) => approval.toolCallId !== id);
      next.questions = (view.questions ?? []).filter((question) => question.toolCallId !== id);
      break;
    }
    case 'question_required': {
      const id = str(event.payload.tool_call_id);
      const questions = Array.isArray(event.payload.questions)
        ? (event.payload.questions as UserQuestion[])
        : [];
      if (!(view.questions ?? []).some((question) => question.toolCallId === id)) {
        next.questions = [...(view.questions ?? []), { toolCallId: id, questions }];
      }
      break;
    }
    case 'approval_required': {
      const id = str(event.payload.tool_call_id);
      if (!view.approvals.some((approval) => approval.toolCallId === id)) {
        next.approvals = [
          ...view.approvals,
          { toolCallId: id, name: str(event.payload.name), args: event.payload.args },
        ];
      }
      break;
    }
    case 'error':
      next.items = [
        ...view.items,
        {
          kind: 'notice',
          tone: 'error',
          code: event.payload.error.type || undefined,
          text: event.payload.error.message || 'The run reported an error',
        },
      ];
      break;
    case 'end':
      next.end = {
        status: (str(event.payload.status) || 'completed') as RunStatus,
        output: typeof event.payload.output === 'string' ? event.payload.output : null,
        error: runError(event.payload.error),
        usage: event.payload.usage ?? null,
      };
      next.approvals = [];
      next.questions = [];
      break;
    case 'subagent_update': {
      const update = event.payload;
      if (typeof update.run_id === 'string') next.subagents = { ...view.subagents, [update.run_id]: update };
      break;
    }
    case 'model_retry':
    case 'model_fallback': {
      // The failed attempt's text is dropped by the server: drop it here too, so the retry's answer is not
      // shown after a half of the same answer.
      next.items = withoutTrailingText(view.items, Number(event.payload.discarded_chars) || 0);
      next.items = [
        ...next.items,
        { kind: 'notice', tone: 'info', code: event.type, text: modelNotice(event) },
      ];
      break;
    }
    case 'context_compacted':
      next.items = [
        ...view.items,
        {
          kind: 'notice',
          tone: 'info',
          code: event.type,
          text: compactionNotice(event.payload.messages_summarised, {
            before: event.payload.tokens_before,
            after: event.payload.tokens_after,
          }),
        },
      ];
      break;
    case 'verification':
      next.verdicts = { ...view.verdicts, [event.payload.run_id]: verdictFromEvent(event.payload) };
      break;
    case 'step':
    case 'artifact':
      break;
  }
  return next;
}

/** `items` with the last `chars` characters of its trailing text removed (an emptied text item goes). */
function withoutTrailingText(items: TranscriptItem[], chars: number): TranscriptItem[] {
  const last = items.at(-1);
  if (chars <= 0 || last?.kind !== 'text') return items;
  const kept = last.text.slice(0, Math.max(0, last.text.length - chars));
  return kept === '' ? items.slice(0, -1) : [...items.slice(0, -1), { ...last, text: kept }];
}

/** The approval was answered from this page: hide the prompt without waiting for the tool result. */
export function dismissApproval(view: LiveRun, toolCallId: string): LiveRun {
  return { ...view, approvals: view.approvals.filter((approval) => approval.toolCallId !== toolCallId) };
}

/** The question was answered from this page: hide the prompt without waiting for the tool result. */
export function dismissQuestion(view: LiveRun, toolCallId: string): LiveRun {
  return {
    ...view,
    questions: (view.questions ?? []).filter((question) => question.toolCallId !== toolCallId),
  };
}

/** Guards what comes back from sessionStorage: anything malformed is dropped rather than rendered. */
export function isLiveRun(value: unknown): value is LiveRun {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return (
    typeof record.runId === 'string' &&
    typeof record.lastSeq === 'number' &&
    Number.isInteger(record.lastSeq) &&
    record.lastSeq >= 0 &&
    Array.isArray(record.items) &&
    Array.isArray(record.approvals) &&
    typeof record.subagents === 'object' &&
    record.subagents !== null
  );
}
