import path from 'node:path';
import { NO_SPECIAL, o200kEncoding } from '../model-gateway/prompt-tokens.js';
import { openWorkdirDirectory } from '../tools/workdir/open-workdir-directory.js';

/**
 * Where results too big for the prompt are kept, relative to the project workdir (reserved by the server):
 * tool results, MCP results and subagent/delegation results alike (docs/model-calls.md#big-tool-results).
 */
export const RESULTS_DIR = '.troupe/tool-results';

/** Characters of a kept result the model still sees: its head and its tail. */
const HEAD_CHARS = 2400;
const TAIL_CHARS = 800;

/** The workdir file of a kept result, relative to the workdir: one per tool call or child run. */
export function keptResultPath(id: string): string {
  // Ids come from providers and the run store; anything outside a plain file name is replaced.
  return path.posix.join(RESULTS_DIR, `${id.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 200)}.txt`);
}

export interface KeepLimits {
  /** Over this many tokens (o200k, `gpt-tokenizer`) a result goes to a file. */
  maxTokens: number;
  /** Over this many bytes of UTF-8 too (the child result cap); none when undefined. */
  maxBytes?: number;
}

/** How big a result is: its tokens are only counted when its size cannot settle it (a token is ≥ 1 byte). */
async function oversized(
  text: string,
  limits: KeepLimits,
): Promise<{ bytes: number; tokens: number } | undefined> {
  const bytes = Buffer.byteLength(text, 'utf8');
  const overBytes = limits.maxBytes !== undefined && bytes > limits.maxBytes;
  if (!overBytes && bytes <= limits.maxTokens) return undefined;
  const encoding = await o200kEncoding();
  const within = encoding.isWithinTokenLimit(text, limits.maxTokens, NO_SPECIAL);
  if (within !== false && !overBytes) return undefined;
  return { bytes, tokens: within === false ? encoding.countTokens(text, NO_SPECIAL) : within };
}

function lineCount(text: string): number {
  let lines = 1;
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) lines += 1;
  return text.endsWith('\n') ? lines - 1 : lines;
}

/** The first `chars` characters, ended at the last line break in their second half when there is one. */
function headOf(text: string, chars: number): string {
  const cut = text.slice(0, chars);
  const lineEnd = cut.lastIndexOf('\n');
  return lineEnd > chars / 2 ? cut.slice(0, lineEnd + 1) : cut;
}

function tailOf(text: string, chars: number): string {
  const cut = text.slice(-chars);
  const lineStart = cut.indexOf('\n');
  return lineStart !== -1 && lineStart < chars / 2 ? cut.slice(lineStart + 1) : cut;
}

/** What the model reads instead of a kept result: head, tail, size, path and how to read more. */
export function keptResultText(
  text: string,
  size: { bytes: number; tokens: number },
  shownPath: string,
  limits: KeepLimits,
): string {
  // The preview itself stays well under the limits that sent the result to a file.
  const budget = Math.min(HEAD_CHARS + TAIL_CHARS, limits.maxTokens * 2, limits.maxBytes ?? Infinity);
  const head = headOf(text, Math.floor(budget * 0.75));
  const tail = tailOf(text.slice(head.length), Math.floor(budget * 0.25));
  const omitted = text.length - head.length - tail.length;
  return [
    head,
    `\n[… ${omitted} characters omitted …]\n`,
    tail,
    `\n[Result kept in the workdir: ${shownPath} (${size.tokens} tokens, ${size.bytes} bytes, ` +
      `${lineCount(text)} lines). Read more with read_file (offset: first line, limit: lines) or grep.]`,
  ].join('');
}

/**
 * A result as the model gets it: as it is when it fits the limits, else written whole to the workdir
 * (`keptResultPath(id)`) and answered with its head, its tail, its size and the file's path. The workdir is
 * the tenant's: an `execute` command may have made `.troupe` (or any part of the path) a link to anywhere,
 * or planted a link at the file's own name; the directory is reclaimed (links and files in its way removed,
 * never followed) and the file replaced by a rename, so the write lands in the workdir whatever was planted
 * there. The file stays the server's: read-only inside the sandbox.
 */
export async function keepResultInWorkdir(
  text: string,
  options: KeepLimits & { workdir: string; id: string },
): Promise<string> {
  const size = await oversized(text, options);
  if (size === undefined) return text;
  const relative = keptResultPath(options.id);
  const directory = await openWorkdirDirectory(options.workdir, RESULTS_DIR, { create: true, reclaim: true });
  try {
    await directory.writeFile(path.posix.basename(relative), text);
  } finally {
    await directory.close();
  }
  return keptResultText(text, size, relative, options);
}

/**
 * A result that is already a workdir file (a `read_file` of a big file): nothing is copied; the model gets
 * the head, tail and size, and the file's own path to page through.
 */
export async function previewOfWorkdirFile(
  text: string,
  shownPath: string,
  limits: KeepLimits,
): Promise<string> {
  const size = await oversized(text, limits);
  return size === undefined ? text : keptResultText(text, size, shownPath, limits);
}
