/** How deep params may nest (objects and arrays): a data part deeper than this is refused, not recursed. */
export const MAX_PARAMS_DEPTH = 64;
/** Parts in one message: each becomes a piece of the run's input. */
export const MAX_MESSAGE_PARTS = 100;
/**
 * Characters of one part (its JSON): a part becomes model input, and one bigger than this is a document to
 * upload to knowledge, not a message. The request body cap (`TROUPE_MAX_BODY_BYTES`) bounds the whole.
 */
export const MAX_PART_CHARS = 256 * 1024;
/** A messageId becomes the run's request id (`a2a:` + it, 200 characters at most). */
export const MAX_MESSAGE_ID_LENGTH = 196;

/** A refused field, named as the client wrote it (ProtoJSON camelCase path). */
export interface ParamsViolation {
  field: string;
  description: string;
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** ProtoJSON takes both spellings of a field; the first one present is the one the SDK reads. */
function fieldOf(object: Json, camel: string): { name: string; value: unknown } | undefined {
  const snake = camel.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
  if (object[camel] !== undefined && object[camel] !== null) return { name: camel, value: object[camel] };
  if (object[snake] !== undefined && object[snake] !== null) return { name: snake, value: object[snake] };
  return undefined;
}

/**
 * The first place where `value` nests deeper than `MAX_PARAMS_DEPTH`, as a path. Recursion stops at the
 * limit, so a hostile 50,000-deep value costs 64 frames, not a stack overflow.
 */
function tooDeep(value: unknown, path: string, depth: number): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  if (depth >= MAX_PARAMS_DEPTH) return path;
  const entries: [string, unknown][] = Array.isArray(value)
    ? value.map((item, index) => [`${path}[${index}]`, item])
    : Object.entries(value).map(([key, item]) => [path === '' ? key : `${path}.${key}`, item]);
  for (const [childPath, child] of entries) {
    const found = tooDeep(child, childPath, depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}

function optionalString(object: Json, camel: string, prefix: string): ParamsViolation | undefined {
  const field = fieldOf(object, camel);
  if (field === undefined || typeof field.value === 'string') return undefined;
  return { field: `${prefix}${field.name}`, description: `${field.name} must be a string` };
}

/** A message of `SendMessage` (1.0) or `message/send` (0.3): ids are strings, parts a bounded list. */
function checkMessage(message: unknown, legacy: boolean): ParamsViolation | undefined {
  if (!isObject(message)) {
    return { field: 'message', description: 'message is required and must be an object' };
  }
  const messageId = fieldOf(message, 'messageId');
  if (messageId === undefined || typeof messageId.value !== 'string' || messageId.value.trim() === '') {
    return {
      field: `message.${messageId?.name ?? 'messageId'}`,
      description: 'messageId is required: a non-empty string the client makes unique (e.g. a UUID)',
    };
  }
  if (messageId.value.length > MAX_MESSAGE_ID_LENGTH) {
    return {
      field: `message.${messageId.name}`,
      description: `messageId must be at most ${MAX_MESSAGE_ID_LENGTH} characters`,
    };
  }
  for (const name of ['taskId', 'contextId']) {
    const violation = optionalString(message, name, 'message.');
    if (violation) return violation;
  }
  const parts = message.parts;
  if (parts !== undefined && !Array.isArray(parts)) {
    return { field: 'message.parts', description: 'parts must be an array' };
  }
  if ((parts?.length ?? 0) > MAX_MESSAGE_PARTS) {
    return { field: 'message.parts', description: `A message has at most ${MAX_MESSAGE_PARTS} parts` };
  }
  for (const [index, part] of (parts ?? []).entries()) {
    if (!isObject(part)) {
      return { field: `message.parts[${index}]`, description: 'Each part must be an object' };
    }
    // 1.0 says what a part is by its one content field; 0.3 by `kind`.
    const text = legacy ? part.text : fieldOf(part, 'text')?.value;
    if (text !== undefined && typeof text !== 'string') {
      return { field: `message.parts[${index}].text`, description: 'text must be a string' };
    }
    // Depth is checked before messages, so this stringify is bounded too.
    if (JSON.stringify(part).length > MAX_PART_CHARS) {
      return {
        field: `message.parts[${index}]`,
        description: `A part holds at most ${MAX_PART_CHARS} characters; upload larger content to a knowledge source`,
      };
    }
  }
  return undefined;
}

const TASK_ID_METHODS = new Set([
  'GetTask',
  'CancelTask',
  'SubscribeToTask',
  'tasks/get',
  'tasks/cancel',
  'tasks/resubscribe',
]);
const MESSAGE_METHODS = new Set(['SendMessage', 'SendStreamingMessage', 'message/send', 'message/stream']);
const LEGACY_MESSAGE_METHODS = new Set(['message/send', 'message/stream']);

/**
 * The params of an A2A call, checked on the raw JSON before the SDK parses them: its parsers coerce
 * anything to a string (`{"$gt": ""}` would become the messageId "[object Object]") and recurse without
 * a bound, so a wrong type or a hostile nesting would otherwise pass as data or fail as an internal error.
 * Returns the first violation, for a `-32602` that names the field.
 */
export function checkA2AParams(method: string, params: unknown): ParamsViolation | undefined {
  if (params === undefined || params === null) {
    return MESSAGE_METHODS.has(method) || TASK_ID_METHODS.has(method)
      ? { field: 'params', description: 'params must be an object' }
      : undefined;
  }
  if (!isObject(params)) return { field: 'params', description: 'params must be an object' };
  const deep = tooDeep(params, '', 0);
  if (deep !== undefined) {
    return {
      field: deep,
      description: `Values nest at most ${MAX_PARAMS_DEPTH} levels deep; send flatter data`,
    };
  }
  for (const name of ['tenant', 'contextId', 'pageToken']) {
    const violation = optionalString(params, name, '');
    if (violation) return violation;
  }
  if (TASK_ID_METHODS.has(method)) {
    const id = fieldOf(params, 'id');
    if (id === undefined || typeof id.value !== 'string' || id.value.trim() === '') {
      return { field: id?.name ?? 'id', description: 'id (the task id) is required and must be a string' };
    }
  }
  if (MESSAGE_METHODS.has(method)) return checkMessage(params.message, LEGACY_MESSAGE_METHODS.has(method));
  return undefined;
}
