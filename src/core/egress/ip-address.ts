/**
 * IP addresses as 4 or 16 bytes, parsed from every notation a URL host or a resolver may use. Odd IPv4
 * forms (`2130706433`, `0x7f.1`, `0177.0.0.1`) are parsed the way inet_aton and the WHATWG URL parser
 * read them, so a policy check sees the same address the connection would reach.
 */
export interface IpAddress {
  version: 4 | 6;
  bytes: Uint8Array;
}

function ipv4Part(part: string): number | undefined {
  if (part === '') return undefined;
  let radix = 10;
  let digits = part;
  if (/^0x/i.test(part)) {
    radix = 16;
    digits = part.slice(2);
    // `0x` alone is zero for the URL parser.
    if (digits === '') return 0;
  } else if (part.length > 1 && part.startsWith('0')) {
    radix = 8;
    digits = part.slice(1);
  }
  const pattern = radix === 16 ? /^[0-9a-f]+$/i : radix === 8 ? /^[0-7]+$/ : /^[0-9]+$/;
  if (!pattern.test(digits)) return undefined;
  const significant = digits.replace(/^0+(?=.)/, '');
  // Anything this long is above 2^32, which no part may be; parseInt would lose precision first.
  if (significant.length > 11) return 2 ** 33;
  return parseInt(significant, radix);
}

/** `a`, `a.b`, `a.b.c` or `a.b.c.d`, each part decimal, octal (`0…`) or hex (`0x…`); the last fills the rest. */
export function parseIpv4(text: string): IpAddress | undefined {
  const trimmed = text.endsWith('.') ? text.slice(0, -1) : text;
  const parts = trimmed.split('.');
  if (parts.length === 0 || parts.length > 4) return undefined;
  const values: number[] = [];
  for (const part of parts) {
    const value = ipv4Part(part);
    if (value === undefined) return undefined;
    values.push(value);
  }
  const last = values.pop() ?? 0;
  if (values.some((value) => value > 255)) return undefined;
  if (last >= 256 ** (4 - values.length)) return undefined;
  const bytes = new Uint8Array(4);
  values.forEach((value, index) => (bytes[index] = value));
  for (let index = 3, rest = last; index >= values.length; index -= 1, rest = Math.floor(rest / 256)) {
    bytes[index] = rest % 256;
  }
  return { version: 4, bytes };
}

/** Strict dotted quad, the only IPv4 form allowed inside an IPv6 address. */
function dottedQuad(text: string): number[] | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  const values = parts.map((part) => (/^(0|[1-9][0-9]{0,2})$/.test(part) ? Number(part) : 256));
  return values.every((value) => value <= 255) ? values : undefined;
}

function hexGroups(text: string): number[] | undefined {
  if (text === '') return [];
  const groups: number[] = [];
  for (const group of text.split(':')) {
    if (!/^[0-9a-f]{1,4}$/i.test(group)) return undefined;
    groups.push(parseInt(group, 16));
  }
  return groups;
}

/** Full, compressed (`::`), with a trailing dotted quad, in brackets, with a zone (`%eth0`). */
export function parseIpv6(text: string): IpAddress | undefined {
  let body = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const zone = body.indexOf('%');
  if (zone >= 0) body = body.slice(0, zone);
  if (!body.includes(':')) return undefined;
  let tail: number[] = [];
  const lastColon = body.lastIndexOf(':');
  const lastPart = body.slice(lastColon + 1);
  if (lastPart.includes('.')) {
    const quad = dottedQuad(lastPart);
    if (!quad) return undefined;
    tail = [(quad[0] ?? 0) * 256 + (quad[1] ?? 0), (quad[2] ?? 0) * 256 + (quad[3] ?? 0)];
    // Keep the colon of `::` when the quad follows it directly (`::1.2.3.4`).
    body = body.slice(0, body.endsWith(`::${lastPart}`) ? lastColon + 1 : lastColon);
  }
  const halves = body.split('::');
  if (halves.length > 2) return undefined;
  const head = hexGroups(halves[0] ?? '');
  const rest = halves.length === 2 ? hexGroups(halves[1] ?? '') : [];
  if (!head || !rest) return undefined;
  const known = head.length + rest.length + tail.length;
  if (halves.length === 1 ? known !== 8 : known > 7) return undefined;
  const groups = [...head, ...new Array<number>(8 - known).fill(0), ...rest, ...tail];
  const bytes = new Uint8Array(16);
  groups.forEach((group, index) => {
    bytes[index * 2] = group >> 8;
    bytes[index * 2 + 1] = group & 0xff;
  });
  return { version: 6, bytes };
}

/** An IP literal in any notation, or undefined for a host name. */
export function parseIpAddress(text: string): IpAddress | undefined {
  return parseIpv6(text) ?? parseIpv4(text);
}

export function formatIpAddress(address: IpAddress): string {
  if (address.version === 4) return [...address.bytes].join('.');
  const groups: number[] = [];
  for (let index = 0; index < 16; index += 2)
    groups.push(((address.bytes[index] ?? 0) << 8) | (address.bytes[index + 1] ?? 0));
  // The longest run of two or more zero groups becomes `::` (RFC 5952).
  let best = { start: -1, length: 1 };
  for (let start = 0; start < 8; start += 1) {
    let length = 0;
    while (start + length < 8 && groups[start + length] === 0) length += 1;
    if (length > best.length) best = { start, length };
  }
  const hex = groups.map((group) => group.toString(16));
  if (best.start < 0) return hex.join(':');
  return `${hex.slice(0, best.start).join(':')}::${hex.slice(best.start + best.length).join(':')}`;
}
