/** One captured stream: what was kept, and how many bytes were read past the cap and dropped. */
export interface CappedStream {
  push(chunk: Buffer): void;
  text(): string;
  readonly omitted: number;
}

/**
 * stdout and stderr share one byte budget. Past it, chunks are still read (a blocked pipe would stall the
 * command) but only counted, so a command printing forever costs CPU until its limits stop it, never memory.
 */
export function createCappedOutput(capBytes: number): { stdout: CappedStream; stderr: CappedStream } {
  let remaining = capBytes;
  const stream = (): CappedStream => {
    const kept: Buffer[] = [];
    let omitted = 0;
    return {
      push(chunk) {
        const take = Math.min(remaining, chunk.length);
        if (take > 0) kept.push(take === chunk.length ? chunk : chunk.subarray(0, take));
        remaining -= take;
        omitted += chunk.length - take;
      },
      text: () => Buffer.concat(kept).toString('utf8'),
      get omitted() {
        return omitted;
      },
    };
  };
  return { stdout: stream(), stderr: stream() };
}
