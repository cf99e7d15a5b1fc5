import { afterEach } from 'vitest';

export interface Closable {
  close(): Promise<void>;
}

/**
 * Registers an afterEach that closes what the test handed to the returned function, last opened first
 * (a context before the harness whose storage it uses), and then forgets it.
 */
export function closeAfterEach(): (opened: Closable) => void {
  let open: Closable[] = [];
  afterEach(async () => {
    const closing = open.reverse();
    open = [];
    for (const closable of closing) await closable.close();
  });
  return (opened) => {
    open.push(opened);
  };
}
