// Sorts the literal IP address in a base URL's host into public, loopback or neither (IANA special-purpose registries).

export type AddressKind = 'public' | 'loopback' | 'non-public' | 'not-an-address';

// Every IPv4 block that is not globally reachable unicast; 240.0.0.0/4 includes the broadcast 255.255.255.255.
const NON_PUBLIC_V4: readonly (readonly [string, number])[] = [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // CGNAT; also where some clouds answer metadata (100.100.100.200)
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, the usual metadata address 169.254.169.254
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved
];

const DOTTED_QUAD = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

function ipv4ToNumber(text: string): number | undefined {
  const match = DOTTED_QUAD.exec(text);
  if (!match) return undefined;
  const octets = match.slice(1).map(Number);
  if (octets.some((octet) => octet > 255)) return undefined;
  return octets.reduce((sum, octet) => sum * 256 + octet, 0);
}

function inV4Block(address: number, base: string, prefix: number): boolean {
  const size = 2 ** (32 - prefix);
  return Math.floor(address / size) === Math.floor((ipv4ToNumber(base) ?? -1) / size);
}

function classifyIpv4(address: number): AddressKind {
  if (inV4Block(address, '127.0.0.0', 8)) return 'loopback';
  return NON_PUBLIC_V4.some(([base, prefix]) => inV4Block(address, base, prefix)) ? 'non-public' : 'public';
}

/** Eight 16-bit groups; WHATWG URL serializes IPv6 as lowercase hex groups with one `::`, never a dotted tail. */
function parseIpv6(text: string): number[] | undefined {
  if (!/^[0-9a-f:]+$/.test(text)) return undefined;
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const groupsOf = (part: string | undefined) => (part ? part.split(':').map((group) => Number.parseInt(group, 16)) : []);
  const head = groupsOf(halves[0]);
  const tail = groupsOf(halves[1]);
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const groups = [...head, ...Array<number>(halves.length === 1 ? 0 : missing).fill(0), ...tail];
  return groups.every((group) => Number.isInteger(group) && group >= 0 && group <= 0xffff) ? groups : undefined;
}

/**
 * Public means global unicast 2000::/3 outside the blocks that are not globally reachable or that embed an IPv4
 * address: 2001::/23 (Teredo and other protocol assignments), 2001:db8::/32 and 3fff::/20 (documentation),
 * 2002::/16 (6to4). Everything outside 2000::/3 is refused, which covers ::ffff:a.b.c.d (mapped), ::a.b.c.d
 * (compatible), 64:ff9b::/96 and 64:ff9b:1::/48 (NAT64) whatever address they embed, fc00::/7 (unique local, where
 * AWS answers metadata at fd00:ec2::254), fe80::/10 (link-local) and ff00::/8 (multicast).
 */
function classifyIpv6(groups: number[]): AddressKind {
  const [first = 0, second = 0] = groups;
  if (groups.slice(0, 7).every((group) => group === 0) && groups[7] === 1) return 'loopback';
  if ((first & 0xe000) !== 0x2000) return 'non-public';
  if (first === 0x2001 && second < 0x0200) return 'non-public';
  if (first === 0x2001 && second === 0x0db8) return 'non-public';
  if (first === 0x2002) return 'non-public';
  if (first === 0x3fff && second < 0x1000) return 'non-public';
  return 'public';
}

/** `hostname` as `URL.hostname` gives it: a dotted quad, `[ipv6]`, or a name (→ 'not-an-address'). */
export function classifyHost(hostname: string): AddressKind {
  if (hostname.startsWith('[') && hostname.endsWith(']')) {
    const groups = parseIpv6(hostname.slice(1, -1));
    return groups ? classifyIpv6(groups) : 'non-public';
  }
  const v4 = ipv4ToNumber(hostname);
  return v4 === undefined ? 'not-an-address' : classifyIpv4(v4);
}
