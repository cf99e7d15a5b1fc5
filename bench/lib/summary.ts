/** A median and p99, as the suites record latencies. */
export interface Summary {
  median: number;
  p99: number;
}
