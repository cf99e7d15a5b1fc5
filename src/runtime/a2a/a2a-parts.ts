import { Role, type Artifact, type Message, type Part } from '@a2a-js/sdk';
import { ContentTypeNotSupportedError, RequestMalformedError } from '@a2a-js/sdk/errors';

/** The one artifact a task produces: the run's final answer. Streams replace and extend it by this id. */
export const OUTPUT_ARTIFACT_ID = 'output';

export function textPart(text: string): Part {
  return {
    content: { $case: 'text', value: text },
    metadata: undefined,
    filename: '',
    mediaType: 'text/plain',
  };
}

export function dataPart(value: Record<string, unknown>): Part {
  return {
    content: { $case: 'data', value },
    metadata: undefined,
    filename: '',
    mediaType: 'application/json',
  };
}

export interface MessageIds {
  messageId: string;
  taskId: string;
  contextId: string;
}

export function agentMessage(ids: MessageIds, text: string | Part[]): Message {
  return {
    ...ids,
    role: Role.ROLE_AGENT,
    parts: typeof text === 'string' ? [textPart(text)] : text,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

export function userMessage(ids: MessageIds, text: string): Message {
  return {
    ...ids,
    role: Role.ROLE_USER,
    parts: [textPart(text)],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

export function outputArtifact(text: string): Artifact {
  return {
    artifactId: OUTPUT_ARTIFACT_ID,
    name: 'output',
    description: "The expert's answer",
    parts: [textPart(text)],
    metadata: undefined,
    extensions: [],
  };
}

/**
 * The text a Troupe run is started with: text parts as they are, structured data parts as JSON (a model
 * reads both). Files are refused rather than silently dropped, since the expert would answer without them.
 */
export function readUserText(message: Message | undefined): string {
  if (message === undefined) throw new RequestMalformedError('params.message is required');
  if (message.role === Role.ROLE_AGENT) throw new RequestMalformedError('message.role must be ROLE_USER');
  const pieces: string[] = [];
  for (const part of message.parts) {
    const content = part.content;
    if (content === undefined) continue;
    if (content.$case === 'text') pieces.push(content.value);
    else if (content.$case === 'data') pieces.push(JSON.stringify(content.value ?? null));
    else {
      throw new ContentTypeNotSupportedError(
        `File parts (${content.$case}) are not supported; send the content as text or data parts`,
      );
    }
  }
  const text = pieces.join('\n\n').trim();
  if (text === '') throw new RequestMalformedError('message.parts must contain some text or data');
  return text;
}
