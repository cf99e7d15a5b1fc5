import { parseIpAddress, type IpAddress } from './ip-address.js';

/** An address block: `10.0.0.0/8`, `fc00::/7`; a bare address is a block of one. */
export interface Cidr {
  base: IpAddress;
  prefix: number;
}

export function parseCidr(text: string): Cidr | undefined {
  const slash = text.indexOf('/');
  const base = parseIpAddress(slash < 0 ? text : text.slice(0, slash));
  if (!base) return undefined;
  const bits = base.bytes.length * 8;
  if (slash < 0) return { base, prefix: bits };
  const prefixText = text.slice(slash + 1);
  if (!/^[0-9]{1,3}$/.test(prefixText)) return undefined;
  const prefix = Number(prefixText);
  return prefix <= bits ? { base, prefix } : undefined;
}

export function cidrContains(block: Cidr, address: IpAddress): boolean {
  if (block.base.version !== address.version) return false;
  let remaining = block.prefix;
  for (let index = 0; remaining > 0; index += 1, remaining -= 8) {
    const mask = remaining >= 8 ? 0xff : (0xff << (8 - remaining)) & 0xff;
    if (((block.base.bytes[index] ?? 0) & mask) !== ((address.bytes[index] ?? 0) & mask)) return false;
  }
  return true;
}

/** Parses a table of literal blocks at module load; a typo there is a bug, so it throws. */
export function cidrs(texts: readonly string[]): Cidr[] {
  return texts.map((text) => {
    const block = parseCidr(text);
    if (!block) throw new Error(`invalid CIDR in a built-in table: ${text}`);
    return block;
  });
}
