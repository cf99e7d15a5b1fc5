import { WORKDIR_TOOL_LIMITS } from './workdir-tool-limits.js';

/** A NUL byte near the start marks a file binary, the same heuristic git and grep use. */
export function isBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, WORKDIR_TOOL_LIMITS.binarySniffBytes).includes(0);
}
