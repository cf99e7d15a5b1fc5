import { cidrContains, cidrs, type Cidr } from './cidr.js';
import type { IpAddress } from './ip-address.js';

/** Why an address is not on the public internet; undefined means it is. */
export type EgressRange =
  'loopback' | 'unspecified' | 'link_local' | 'private' | 'cgnat' | 'metadata' | 'multicast' | 'reserved';

// Order matters: the first match names the range, so the narrow metadata blocks come before link-local
// and private.
const TABLE: [EgressRange, Cidr[]][] = [
  // AWS/GCP/Azure/OpenStack, AWS ECS task metadata, Alibaba Cloud, AWS IPv6 (inside fc00::/7).
  ['metadata', cidrs(['169.254.169.254/32', '169.254.170.2/32', '100.100.100.200/32', 'fd00:ec2::254/128'])],
  ['unspecified', cidrs(['0.0.0.0/8', '::/128'])],
  ['loopback', cidrs(['127.0.0.0/8', '::1/128'])],
  ['link_local', cidrs(['169.254.0.0/16', 'fe80::/10'])],
  // fec0::/10 is the deprecated site-local block, private in practice; 64:ff9b:1::/48 is local-use NAT64.
  [
    'private',
    cidrs(['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7', 'fec0::/10', '64:ff9b:1::/48']),
  ],
  ['cgnat', cidrs(['100.64.0.0/10'])],
  ['multicast', cidrs(['224.0.0.0/4', 'ff00::/8'])],
  // IETF protocol assignments, documentation, benchmarking, class E and broadcast, the IPv6 discard
  // prefix, documentation, and Teredo (whose embedded client address cannot be checked reliably).
  [
    'reserved',
    cidrs([
      '192.0.0.0/24',
      '192.0.2.0/24',
      '198.18.0.0/15',
      '198.51.100.0/24',
      '203.0.113.0/24',
      '240.0.0.0/4',
      '100::/64',
      '2001:db8::/32',
      '2001::/32',
    ]),
  ],
];

// IPv6 forms that carry an IPv4 address the packets may end up at: IPv4-mapped, IPv4-translated,
// IPv4-compatible (deprecated), NAT64 and 6to4.
const MAPPED = cidrs(['::ffff:0:0/96', '::ffff:0:0:0/96', '::/96', '64:ff9b::/96']);
const SIX_TO_FOUR = cidrs(['2002::/16']);

/** The IPv4 address an IPv6 address stands for, if it is one of the forms that embed one. */
export function embeddedIpv4(address: IpAddress): IpAddress | undefined {
  if (address.version !== 6) return undefined;
  if (MAPPED.some((block) => cidrContains(block, address))) {
    // `::` and `::1` sit inside ::/96 but are IPv6's own unspecified and loopback addresses.
    const prefixIsZero = address.bytes.slice(0, 12).every((byte) => byte === 0);
    const last = address.bytes.slice(12);
    if (prefixIsZero && last[0] === 0 && last[1] === 0 && last[2] === 0 && (last[3] ?? 0) <= 1)
      return undefined;
    return { version: 4, bytes: last };
  }
  if (SIX_TO_FOUR.some((block) => cidrContains(block, address)))
    return { version: 4, bytes: address.bytes.slice(2, 6) };
  return undefined;
}

/** The range that makes an address non-public, judged on the IPv4 address it embeds when it embeds one. */
export function classifyAddress(address: IpAddress): EgressRange | undefined {
  const effective = embeddedIpv4(address) ?? address;
  for (const [range, blocks] of TABLE) {
    if (blocks.some((block) => cidrContains(block, effective))) return range;
  }
  return undefined;
}
