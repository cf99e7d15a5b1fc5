import { randomUUID } from 'node:crypto';
import { SendMessageRequest, type Part, type StreamResponse, type Task } from '@a2a-js/sdk';
import {
  ClientFactory,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  type Client,
} from '@a2a-js/sdk/client';
import { isJsonRpcError } from '@a2a-js/sdk/errors';

/** `fetch` with a Troupe bearer token, as an A2A client is configured for a bearer security scheme. */
export function bearerFetch(token: string): typeof fetch {
  return (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('authorization', `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };
}

/** The official SDK client for the agent whose card is at `<baseUrl>/.well-known/agent-card.json`. */
export function a2aClient(baseUrl: string, token: string): Promise<Client> {
  const fetchImpl = bearerFetch(token);
  const factory = new ClientFactory({
    transports: [new JsonRpcTransportFactory({ fetchImpl })],
    cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
  });
  return factory.createFromUrl(baseUrl);
}

export interface SendOptions {
  contextId?: string;
  taskId?: string;
  tenant?: string;
  returnImmediately?: boolean;
  messageId?: string;
}

export function userText(text: string, options: SendOptions = {}): SendMessageRequest {
  return userParts([{ text }], options);
}

/** A user message of ProtoJSON parts (`{text}`, `{data}`…). */
export function userParts(parts: unknown[], options: SendOptions = {}): SendMessageRequest {
  return SendMessageRequest.fromJSON({
    tenant: options.tenant ?? '',
    message: {
      messageId: options.messageId ?? randomUUID(),
      role: 'ROLE_USER',
      parts,
      ...(options.contextId !== undefined ? { contextId: options.contextId } : {}),
      ...(options.taskId !== undefined ? { taskId: options.taskId } : {}),
    },
    configuration: { returnImmediately: options.returnImmediately ?? false },
  });
}

export function asTask(result: unknown): Task {
  if (typeof result !== 'object' || result === null || !('status' in result))
    throw new Error('expected a Task, got a Message');
  return result as Task;
}

export function partsText(parts: readonly Part[] | undefined): string {
  return (parts ?? []).map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join('');
}

/** The task's `output` artifact text. */
export function outputText(task: Task): string {
  return partsText(task.artifacts.find((artifact) => artifact.artifactId === 'output')?.parts);
}

/** Collects a stream to its end; `onEvent` may act on events as they arrive (never a timer). */
export async function collect(
  stream: AsyncIterable<StreamResponse>,
  onEvent?: (event: StreamResponse, index: number) => Promise<void> | void,
): Promise<StreamResponse[]> {
  const events: StreamResponse[] = [];
  for await (const event of stream) {
    events.push(event);
    await onEvent?.(event, events.length - 1);
  }
  return events;
}

/** A streamed `output` artifact as a client rebuilds it: `append: false` replaces, `true` extends. */
export function streamedOutput(events: readonly StreamResponse[]): string {
  let text = '';
  for (const event of events) {
    if (event.payload?.$case !== 'artifactUpdate') continue;
    const chunk = partsText(event.payload.value.artifact?.parts);
    text = event.payload.value.append ? text + chunk : chunk;
  }
  return text;
}

/** The JSON-RPC error code an SDK call failed with; a call that succeeds fails the test. */
export async function codeOf(call: () => Promise<unknown>): Promise<number> {
  try {
    await call();
  } catch (error) {
    if (isJsonRpcError(error)) return error.envelopeCode;
    throw error;
  }
  throw new Error('the call succeeded');
}
