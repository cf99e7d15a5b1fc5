/**
 * What real providers check before they look at a prompt: every tool call of an assistant message is
 * answered, in the message(s) immediately after it, and no result answers a call that is not open. The
 * fakes answer a violation with a 400 carrying (close to) the provider's own wording, so a runtime that
 * sends a dangling call fails against them as it would in production.
 */

type Loose = Record<string, unknown>;

function isObject(value: unknown): value is Loose {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** OpenAI Chat Completions: `tool` messages must directly follow the assistant message with `tool_calls`. */
export function validateOpenAiToolPairing(body: Loose): string | undefined {
  let open = new Set<string>();
  for (const [index, message] of list(body.messages).entries()) {
    if (!isObject(message)) continue;
    if (message.role === 'tool') {
      const id = typeof message.tool_call_id === 'string' ? message.tool_call_id : '';
      if (!open.delete(id)) {
        return `Invalid parameter: messages[${index}] with role 'tool' must be a response to a preceeding message with 'tool_calls' (tool_call_id ${id || '(missing)'}).`;
      }
      continue;
    }
    if (open.size > 0) {
      return (
        "An assistant message with 'tool_calls' must be followed by tool messages responding to each " +
        `'tool_call_id'. The following tool_call_ids did not have response messages: ${[...open].join(', ')}`
      );
    }
    open = new Set(
      message.role === 'assistant'
        ? list(message.tool_calls).flatMap((call) =>
            isObject(call) && typeof call.id === 'string' ? [call.id] : [],
          )
        : [],
    );
  }
  if (open.size > 0) {
    return `The following tool_call_ids did not have response messages: ${[...open].join(', ')}`;
  }
  return undefined;
}

/** Anthropic Messages: `tool_use` blocks need `tool_result` blocks in the very next (user) message. */
export function validateAnthropicToolPairing(body: Loose): string | undefined {
  let open = new Set<string>();
  for (const [index, message] of list(body.messages).entries()) {
    if (!isObject(message)) continue;
    const blocks = list(message.content).filter(isObject);
    const results = blocks.flatMap((block) =>
      block.type === 'tool_result' && typeof block.tool_use_id === 'string' ? [block.tool_use_id] : [],
    );
    for (const id of results) {
      if (message.role !== 'user' || !open.delete(id)) {
        return (
          `messages.${index}.content: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${id}. ` +
          'Each `tool_result` block must have a corresponding `tool_use` block in the previous message.'
        );
      }
    }
    if (open.size > 0) {
      return (
        `messages.${index}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ` +
        `${[...open].join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`
      );
    }
    open = new Set(
      message.role === 'assistant'
        ? blocks.flatMap((block) =>
            block.type === 'tool_use' && typeof block.id === 'string' ? [block.id] : [],
          )
        : [],
    );
  }
  if (open.size > 0) {
    return (
      `messages: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${[...open].join(', ')}. ` +
      'Each `tool_use` block must have a corresponding `tool_result` block in the next message.'
    );
  }
  return undefined;
}
