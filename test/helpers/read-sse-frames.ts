export interface SseFrame {
  id: string | undefined;
  event: string | undefined;
  data: string;
}

/**
 * Reads an SSE body to its end, parsing frames as a browser would; `onFrames` gets the frames of each network
 * chunk together, so a receive timestamp can be taken once per chunk.
 */
export async function readSseFrames(
  body: ReadableStream<Uint8Array>,
  onFrames: (frames: SseFrame[]) => void,
): Promise<void> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    const frames: SseFrame[] = [];
    let boundary: number;
    while ((boundary = buffer.indexOf('\n\n')) !== -1) {
      const block = buffer.slice(0, boundary);
      buffer = buffer.slice(boundary + 2);
      const frame: SseFrame = { id: undefined, event: undefined, data: '' };
      let hasData = false;
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon === -1 ? line : line.slice(0, colon);
        const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'id') frame.id = value;
        else if (field === 'event') frame.event = value;
        else if (field === 'data') {
          frame.data += (hasData ? '\n' : '') + value;
          hasData = true;
        }
      }
      if (hasData) frames.push(frame);
    }
    if (frames.length > 0) onFrames(frames);
  }
}
