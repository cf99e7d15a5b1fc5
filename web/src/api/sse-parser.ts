/** One dispatched server-sent event. `id` is the frame's own id field, if it had one. */
export interface SseFrame {
  id: string | undefined;
  event: string;
  data: string;
}

/**
 * Incremental `text/event-stream` parser (WHATWG rules): feed it decoded text in arbitrary chunks, get the
 * complete frames back. Handles `\n`, `\r\n` and `\r` line ends (also split across chunks), comment lines
 * (heartbeats), multi-line `data`, a missing space after the colon, and ignores unknown fields. A block
 * without any `data` line is not dispatched, as in a browser.
 */
export class SseParser {
  private buffer = '';
  private pendingCr = false;
  private id: string | undefined;
  private event = '';
  private data: string[] = [];
  private hasData = false;
  private hasId = false;
  /** The last `retry:` value the server sent, in ms. */
  retryMs: number | undefined;

  push(chunk: string): SseFrame[] {
    let text = chunk;
    // A `\r` at the very end of the previous chunk may be the first half of a `\r\n`.
    if (this.pendingCr) {
      this.pendingCr = false;
      if (text.startsWith('\n')) text = text.slice(1);
    }
    this.buffer += text;
    const frames: SseFrame[] = [];
    let start = 0;
    for (let index = 0; index < this.buffer.length; index += 1) {
      const char = this.buffer[index];
      if (char !== '\n' && char !== '\r') continue;
      const line = this.buffer.slice(start, index);
      if (char === '\r') {
        if (index + 1 === this.buffer.length) this.pendingCr = true;
        else if (this.buffer[index + 1] === '\n') index += 1;
      }
      start = index + 1;
      const frame = this.line(line);
      if (frame) frames.push(frame);
    }
    this.buffer = this.buffer.slice(start);
    return frames;
  }

  /** Stream ended: a trailing block without its blank line is discarded, as the spec says. */
  reset(): void {
    this.buffer = '';
    this.pendingCr = false;
    this.clearBlock();
  }

  private clearBlock(): void {
    this.id = undefined;
    this.hasId = false;
    this.event = '';
    this.data = [];
    this.hasData = false;
  }

  private line(line: string): SseFrame | undefined {
    if (line === '') {
      const frame = this.hasData
        ? { id: this.hasId ? this.id : undefined, event: this.event || 'message', data: this.data.join('\n') }
        : undefined;
      this.clearBlock();
      return frame;
    }
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'data':
        this.data.push(value);
        this.hasData = true;
        break;
      case 'event':
        this.event = value;
        break;
      case 'id':
        if (!value.includes('\0')) {
          this.id = value;
          this.hasId = true;
        }
        break;
      case 'retry':
        if (/^\d+$/.test(value)) this.retryMs = Number(value);
        break;
      default:
        break;
    }
    return undefined;
  }
}
