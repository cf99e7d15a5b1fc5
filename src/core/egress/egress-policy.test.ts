import { describe, expect, it } from 'vitest';
import { createEgressPolicy, parseEgressAllowEntry } from './egress-policy.js';
import { formatIpAddress, parseIpAddress, parseIpv4 } from './ip-address.js';

const policy = createEgressPolicy();
const verdictOf = (url: string) => policy.checkUrl(new URL(url));
const rangeOf = (url: string) => {
  const verdict = verdictOf(url);
  return verdict === 'resolve' ? 'resolve' : verdict.allowed ? 'allowed' : verdict.range;
};

describe('IP literal notations', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1'],
    ['2130706433', '127.0.0.1'],
    ['0x7f.1', '127.0.0.1'],
    ['0x7F000001', '127.0.0.1'],
    ['0177.0.0.1', '127.0.0.1'],
    ['0177.1', '127.0.0.1'],
    ['127.1', '127.0.0.1'],
    ['127.0.1', '127.0.0.1'],
    ['127.0.0.1.', '127.0.0.1'],
    ['017700000001', '127.0.0.1'],
    ['0x7f.0x0.0x0.0x1', '127.0.0.1'],
    ['00000000000000000000177.1', '127.0.0.1'],
    ['0', '0.0.0.0'],
    ['0x', '0.0.0.0'],
    ['167772161', '10.0.0.1'],
    ['0xa9fea9fe', '169.254.169.254'],
    ['::1', '::1'],
    ['[::1]', '::1'],
    ['0:0:0:0:0:0:0:1', '::1'],
    ['::ffff:127.0.0.1', '::ffff:7f00:1'],
    ['::FFFF:7F00:1', '::ffff:7f00:1'],
    ['fe80::1%eth0', 'fe80::1'],
    ['1:2:3:4:5:6:7:8', '1:2:3:4:5:6:7:8'],
    ['1::', '1::'],
    ['::', '::'],
  ])('%s is %s', (text, expected) => {
    const parsed = parseIpAddress(text);
    expect(parsed && formatIpAddress(parsed)).toBe(expected);
  });

  it.each([
    '256.0.0.1',
    '1.2.3.4.5',
    '4294967296',
    '0x100000000',
    '1.2.3.0x100',
    '08.0.0.1',
    '1..1',
    'example.com',
    '1.2.3.foo',
    '',
    ':::',
    '1:2:3:4:5:6:7:8:9',
    '1::2::3',
    '::1.2.3.256',
    '::01.2.3.4',
    'g::1',
    '12345::',
  ])('%s is not an address', (text) => expect(parseIpAddress(text)).toBeUndefined());

  it('reads a last part that fills the remaining bytes', () => {
    const parsed = parseIpv4('1.65535');
    expect(parsed && formatIpAddress(parsed)).toBe('1.0.255.255');
    expect(parseIpv4('1.2.65536')).toBeUndefined();
  });
});

describe('the egress classifier over URLs (as the URL parser normalises them)', () => {
  it.each([
    // loopback in every notation
    ['http://127.0.0.1/', 'loopback'],
    ['http://127.255.255.254:8080/x', 'loopback'],
    ['http://2130706433/', 'loopback'],
    ['http://0x7f.1/', 'loopback'],
    ['http://0177.0.0.1/', 'loopback'],
    ['http://127.1/', 'loopback'],
    ['http://017700000001/', 'loopback'],
    ['http://[::1]/', 'loopback'],
    ['http://[0:0:0:0:0:0:0:1]/', 'loopback'],
    ['http://localhost/', 'loopback'],
    ['http://LOCALHOST./', 'loopback'],
    ['http://api.localhost:3000/', 'loopback'],
    // IPv4-mapped, -translated, -compatible, NAT64 and 6to4 forms
    ['http://[::ffff:127.0.0.1]/', 'loopback'],
    ['http://[::ffff:7f00:1]/', 'loopback'],
    ['http://[0:0:0:0:0:ffff:127.0.0.1]/', 'loopback'],
    ['http://[::ffff:0:127.0.0.1]/', 'loopback'],
    ['http://[::127.0.0.1]/', 'loopback'],
    ['http://[64:ff9b::127.0.0.1]/', 'loopback'],
    ['http://[2002:7f00:1::]/', 'loopback'],
    ['http://[::ffff:10.0.0.1]/', 'private'],
    ['http://[::ffff:169.254.169.254]/', 'metadata'],
    ['http://[::ffff:a9fe:a9fe]/', 'metadata'],
    ['http://[::ffff:100.64.0.1]/', 'cgnat'],
    ['http://[::ffff:0.0.0.0]/', 'unspecified'],
    ['http://[::ffff:192.168.0.1]/', 'private'],
    ['http://[::ffff:169.254.1.1]/', 'link_local'],
    // unspecified
    ['http://0.0.0.0/', 'unspecified'],
    ['http://0/', 'unspecified'],
    ['http://[::]/', 'unspecified'],
    // link-local
    ['http://169.254.1.1/', 'link_local'],
    ['http://[fe80::1]/', 'link_local'],
    ['http://[febf::1]/', 'link_local'],
    // private
    ['http://10.0.0.1/', 'private'],
    ['http://167772161/', 'private'],
    ['http://172.16.0.1/', 'private'],
    ['http://172.31.255.255/', 'private'],
    ['http://192.168.1.1/', 'private'],
    ['http://0xc0.0xa8.1.1/', 'private'],
    ['http://[fc00::1]/', 'private'],
    ['http://[fdff:ffff::1]/', 'private'],
    ['http://[fec0::1]/', 'private'],
    // carrier-grade NAT
    ['http://100.64.0.1/', 'cgnat'],
    ['http://100.127.255.255/', 'cgnat'],
    // cloud metadata
    ['http://169.254.169.254/latest/meta-data/', 'metadata'],
    ['http://0xa9fea9fe/', 'metadata'],
    ['http://2852039166/', 'metadata'],
    ['http://[fd00:ec2::254]/', 'metadata'],
    ['http://metadata.google.internal/computeMetadata/v1/', 'metadata'],
    ['http://METADATA.GOOGLE.INTERNAL./', 'metadata'],
    ['http://100.100.100.200/', 'metadata'],
    // everything else that is not the public internet
    ['http://224.0.0.1/', 'multicast'],
    ['http://[ff02::1]/', 'multicast'],
    ['http://255.255.255.255/', 'reserved'],
    ['http://192.0.2.1/', 'reserved'],
    ['http://[2001:db8::1]/', 'reserved'],
    ['http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/', 'reserved'],
    // other schemes are never fetched
    ['file:///etc/passwd', 'reserved'],
    ['ftp://example.com/', 'reserved'],
    // public
    ['http://8.8.8.8/', 'allowed'],
    ['https://1.1.1.1:8443/mcp', 'allowed'],
    ['http://172.32.0.1/', 'allowed'],
    ['http://100.128.0.1/', 'allowed'],
    ['http://169.255.0.1/', 'allowed'],
    ['http://[2606:4700:4700::1111]/', 'allowed'],
    ['http://[::ffff:8.8.8.8]/', 'allowed'],
    ['http://[2002:808:808::]/', 'allowed'],
    // names: DNS decides
    ['https://mcp.example.com/mcp', 'resolve'],
    ['http://localhost.example.com/', 'resolve'],
  ])('%s → %s', (url, expected) => expect(rangeOf(url)).toBe(expected));

  it('names the literal in its reason, and never the address a name resolved to', () => {
    expect(verdictOf('http://0x7f.1/')).toEqual({
      allowed: false,
      range: 'loopback',
      reason: '127.0.0.1 is a loopback address',
    });
    expect(policy.checkAddress('internal.example', '10.1.2.3')).toEqual({
      allowed: false,
      range: 'private',
      reason: 'internal.example resolves to a private address',
    });
    expect(policy.checkAddress('public.example', '93.184.215.14')).toEqual({ allowed: true });
    expect(policy.checkAddress('weird.example', 'not-an-ip')).toMatchObject({ allowed: false });
  });

  it('checks resolved addresses in the forms a resolver returns', () => {
    expect(policy.checkAddress('a.example', '::ffff:127.0.0.1')).toMatchObject({ range: 'loopback' });
    expect(policy.checkAddress('a.example', '::1')).toMatchObject({ range: 'loopback' });
    expect(policy.checkAddress('a.example', 'fe80::1%lo0')).toMatchObject({ range: 'link_local' });
  });
});

describe('TROUPE_EGRESS_ALLOW', () => {
  it('opens addresses and blocks, in their IPv4-mapped forms too', () => {
    const open = createEgressPolicy(['127.0.0.1', '10.0.0.0/8', 'fd12::/16']);
    expect(open.checkUrl(new URL('http://127.0.0.1:4000/mcp'))).toEqual({ allowed: true });
    expect(open.checkUrl(new URL('http://[::ffff:127.0.0.1]/'))).toEqual({ allowed: true });
    expect(open.checkUrl(new URL('http://2130706433/'))).toEqual({ allowed: true });
    expect(open.checkUrl(new URL('http://127.0.0.2/'))).toMatchObject({ allowed: false, range: 'loopback' });
    expect(open.checkAddress('svc.internal', '10.9.8.7')).toEqual({ allowed: true });
    expect(open.checkAddress('svc.internal', 'fd12::1')).toEqual({ allowed: true });
    expect(open.checkAddress('svc.internal', '192.168.0.1')).toMatchObject({ allowed: false });
  });

  it('opens host names and *.domains for whatever they resolve to', () => {
    const open = createEgressPolicy(['mcp.internal', '*.corp.example', 'localhost']);
    expect(open.checkAddress('mcp.internal', '10.0.0.1')).toEqual({ allowed: true });
    expect(open.checkAddress('MCP.INTERNAL.', '10.0.0.1')).toEqual({ allowed: true });
    expect(open.checkAddress('other.internal', '10.0.0.1')).toMatchObject({ allowed: false });
    expect(open.checkAddress('a.b.corp.example', '192.168.1.1')).toEqual({ allowed: true });
    expect(open.checkAddress('corp.example.evil', '192.168.1.1')).toMatchObject({ allowed: false });
    expect(open.checkHost('localhost')).toBe('resolve');
    expect(open.checkAddress('localhost', '127.0.0.1')).toEqual({ allowed: true });
  });

  it('opens a metadata address only when that very address is listed', () => {
    expect(createEgressPolicy(['169.254.0.0/16']).checkUrl(new URL('http://169.254.169.254/'))).toMatchObject(
      { range: 'metadata' },
    );
    expect(createEgressPolicy(['169.254.0.0/16']).checkUrl(new URL('http://169.254.1.1/'))).toEqual({
      allowed: true,
    });
    expect(
      createEgressPolicy(['metadata.google.internal']).checkAddress(
        'metadata.google.internal',
        '169.254.169.254',
      ),
    ).toMatchObject({
      allowed: false,
    });
    const listed = createEgressPolicy(['169.254.169.254', 'metadata.google.internal']);
    expect(listed.checkUrl(new URL('http://169.254.169.254/'))).toEqual({ allowed: true });
    expect(listed.checkHost('metadata.google.internal')).toBe('resolve');
  });

  it.each(['10.0.0.0/33', 'http://example.com', 'a b', '', '::1/129', 'exa mple.com', '1.2.3.4/x'])(
    'refuses the entry %j',
    (entry) => expect(parseEgressAllowEntry(entry)).toBeUndefined(),
  );

  it.each([
    '127.0.0.1',
    '10.0.0.0/8',
    '::1',
    '[::1]',
    'fc00::/7',
    'mcp.internal',
    '*.corp.example',
    'localhost',
  ])('accepts the entry %j', (entry) => expect(parseEgressAllowEntry(entry)).toBeDefined());
});
