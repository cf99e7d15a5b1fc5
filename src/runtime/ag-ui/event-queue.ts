/** Several producers, one reader: what the producers push is read in push order until `close`. */
export interface EventQueue<T> {
  push(...items: T[]): void;
  close(): void;
  drain(): AsyncGenerator<T>;
}

export function createEventQueue<T>(): EventQueue<T> {
  const items: T[] = [];
  let closed = false;
  let wake: (() => void) | undefined;
  const notify = (): void => {
    const waiting = wake;
    wake = undefined;
    waiting?.();
  };
  return {
    push(...pushed) {
      if (closed) return;
      items.push(...pushed);
      notify();
    },
    close() {
      closed = true;
      notify();
    },
    async *drain() {
      for (let index = 0; ;) {
        while (index < items.length) {
          const item = items[index] as T;
          index += 1;
          yield item;
        }
        items.splice(0, index);
        index = 0;
        if (closed) return;
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
    },
  };
}
