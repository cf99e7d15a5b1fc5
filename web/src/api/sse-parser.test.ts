import { describe, expect, it } from 'vitest';
import { SseParser, type SseFrame } from './sse-parser.ts';

function parseAll(chunks: string[]): SseFrame[] {
  const parser = new SseParser();
  return chunks.flatMap((chunk) => parser.push(chunk));
}

const STREAM =
  'event: metadata\ndata: {"seq":1}\nid: 1\n\n: heartbeat\n\nevent: end\ndata: {"seq":2}\nid: 2\n\n';

describe('SseParser', () => {
  it('parses frames in the order the Troupe server writes fields, skipping heartbeat comments', () => {
    expect(parseAll([STREAM])).toEqual([
      { id: '1', event: 'metadata', data: '{"seq":1}' },
      { id: '2', event: 'end', data: '{"seq":2}' },
    ]);
  });

  it('gives the same frames whatever the chunking, down to one character at a time', () => {
    const whole = parseAll([STREAM]);
    expect(parseAll(STREAM.split(''))).toEqual(whole);
    for (let cut = 1; cut < STREAM.length; cut += 7) {
      expect(parseAll([STREAM.slice(0, cut), STREAM.slice(cut)])).toEqual(whole);
    }
  });

  it('accepts CRLF and CR line ends, also when a CRLF is split across chunks', () => {
    const crlf = STREAM.replaceAll('\n', '\r\n');
    expect(parseAll([crlf])).toEqual(parseAll([STREAM]));
    expect(parseAll(crlf.split(''))).toEqual(parseAll([STREAM]));
    expect(parseAll([STREAM.replaceAll('\n', '\r')])).toEqual(parseAll([STREAM]));
  });

  it('joins multi-line data with newlines and defaults the event name to "message"', () => {
    expect(parseAll(['data: first\ndata:second\ndata\n\n'])).toEqual([
      { id: undefined, event: 'message', data: 'first\nsecond\n' },
    ]);
  });

  it('does not dispatch a block without data, nor a trailing block without its blank line', () => {
    expect(parseAll(['id: 5\nevent: step\n\n', 'data: unfinished\n'])).toEqual([]);
  });

  it('keeps an error frame without id distinguishable (the server uses it for stream failures)', () => {
    expect(parseAll(['event: error\ndata: {"type":"error"}\n\n'])).toEqual([
      { id: undefined, event: 'error', data: '{"type":"error"}' },
    ]);
  });

  it('reads retry, ignores unknown fields and ids containing NUL', () => {
    const parser = new SseParser();
    expect(parser.push('retry: 1500\nfoo: bar\nid: a\u0000b\ndata: x\n\n')).toEqual([
      { id: undefined, event: 'message', data: 'x' },
    ]);
    expect(parser.retryMs).toBe(1500);
  });
});
