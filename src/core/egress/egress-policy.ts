import { cidrContains, parseCidr, type Cidr } from './cidr.js';
import { classifyAddress, embeddedIpv4, type EgressRange } from './classify-address.js';
import { formatIpAddress, parseIpAddress } from './ip-address.js';

export type EgressVerdict = { allowed: true } | { allowed: false; range: EgressRange; reason: string };

/**
 * Where outbound calls that a non-admin controls may go (docs/egress-and-secrets.md). A host is checked twice: its name or
 * literal before anything is sent (`checkHost`), then every address DNS gives for it (`checkAddress`), on
 * the connection that uses that address, so a second, different answer (DNS rebinding) is never trusted.
 */
export interface EgressPolicy {
  /** URL schemes other than http(s) are refused; a host name answers `resolve`: DNS decides. */
  checkUrl(url: URL): EgressVerdict | 'resolve';
  /** An IP literal in any notation, or a name: `resolve` when only its addresses can tell. */
  checkHost(hostname: string): EgressVerdict | 'resolve';
  /** One address `hostname` resolved to. */
  checkAddress(hostname: string, address: string): EgressVerdict;
}

const ALLOWED: EgressVerdict = { allowed: true };

// Names that reach the host itself or a cloud metadata service whatever DNS says about them.
const LOCAL_NAMES = /^(localhost|.+\.localhost)$/;
const METADATA_NAMES = new Set([
  'metadata.google.internal',
  'metadata.goog',
  'metadata',
  'instance-data',
  'instance-data.ec2.internal',
]);

const RANGE_TEXT: Record<EgressRange, string> = {
  loopback: 'a loopback address',
  unspecified: 'an unspecified address',
  link_local: 'a link-local address',
  private: 'a private address',
  cgnat: 'a carrier-grade NAT address',
  metadata: 'a cloud metadata address',
  multicast: 'a multicast address',
  reserved: 'a reserved address',
};

/** Host names are compared lowercase, without brackets or a trailing dot. */
export function normalizeHost(hostname: string): string {
  const lower = hostname.toLowerCase();
  const unbracketed = lower.startsWith('[') && lower.endsWith(']') ? lower.slice(1, -1) : lower;
  return unbracketed.endsWith('.') ? unbracketed.slice(0, -1) : unbracketed;
}

interface AllowList {
  blocks: Cidr[];
  /** Exact names, and `*.suffix` entries stored as `.suffix`. */
  names: string[];
}

/** One `TROUPE_EGRESS_ALLOW` entry: an address, a CIDR block, a host name or `*.domain`; undefined if none. */
export function parseEgressAllowEntry(entry: string): { block: Cidr } | { name: string } | undefined {
  const trimmed = normalizeHost(entry.trim());
  if (trimmed === '') return undefined;
  const block = parseCidr(trimmed);
  if (block) return { block };
  if (trimmed.includes('/')) return undefined;
  const name = trimmed.startsWith('*.') ? trimmed.slice(1) : trimmed;
  return /^\.?[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*$/.test(name)
    ? { name }
    : undefined;
}

function nameAllowed(list: AllowList, host: string): boolean {
  return list.names.some((name) => (name.startsWith('.') ? host.endsWith(name) : host === name));
}

export function createEgressPolicy(allow: readonly string[] = []): EgressPolicy {
  const list: AllowList = { blocks: [], names: [] };
  for (const entry of allow) {
    const parsed = parseEgressAllowEntry(entry);
    if (!parsed) throw new Error(`invalid egress allow entry: ${entry}`);
    if ('block' in parsed) list.blocks.push(parsed.block);
    else list.names.push(parsed.name);
  }

  function refused(range: EgressRange, subject: string, verb = 'is'): EgressVerdict {
    return { allowed: false, range, reason: `${subject} ${verb} ${RANGE_TEXT[range]}` };
  }

  function checkAddress(hostname: string, text: string): EgressVerdict {
    const address = parseIpAddress(text);
    const host = normalizeHost(hostname);
    if (!address)
      return { allowed: false, range: 'reserved', reason: `${host} resolves to an unreadable address` };
    const range = classifyAddress(address);
    if (range === undefined) return ALLOWED;
    const forms = [address, embeddedIpv4(address)].filter((form) => form !== undefined);
    // Metadata services hold the host's credentials: only an entry naming that very address opens them.
    const listed =
      range === 'metadata'
        ? list.blocks.some(
            (block) =>
              block.prefix === block.base.bytes.length * 8 && forms.some((form) => cidrContains(block, form)),
          )
        : list.blocks.some((block) => forms.some((form) => cidrContains(block, form))) ||
          nameAllowed(list, host);
    if (listed) return ALLOWED;
    // A literal names itself; a resolved name does not reveal the address it points at.
    const literal = parseIpAddress(host);
    return literal ? refused(range, formatIpAddress(literal)) : refused(range, host, 'resolves to');
  }

  function checkHost(hostname: string): EgressVerdict | 'resolve' {
    const host = normalizeHost(hostname);
    if (parseIpAddress(host)) return checkAddress(host, host);
    if (LOCAL_NAMES.test(host) && !nameAllowed(list, host)) return refused('loopback', host);
    if (METADATA_NAMES.has(host) && !list.names.includes(host)) return refused('metadata', host);
    return 'resolve';
  }

  return {
    checkHost,
    checkAddress,
    checkUrl(url) {
      if (url.protocol !== 'http:' && url.protocol !== 'https:') {
        return {
          allowed: false,
          range: 'reserved',
          reason: `the scheme ${url.protocol} is not http or https`,
        };
      }
      return checkHost(url.hostname);
    },
  };
}
