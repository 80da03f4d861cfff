// The subject every per-IP limiter counts: an IPv4 address as itself, an IPv6 address as its /64, anything else as one
// shared "unknown" bucket (docs/design/limits.md#the-client-address-as-a-subject).

/** The one bucket for a request whose runtime reported no address, or one that does not parse. */
export const UNKNOWN_IP_SUBJECT = 'unknown';

/**
 * An IPv6 end site gets a /64 at least (often far more), so an attacker there can use 2^64 addresses: counting each
 * address apart would give them 2^64 allowances. Every form of one address (compressed or expanded, any case, a zone
 * id, brackets, an IPv4-mapped `::ffff:a.b.c.d`) gives the same subject, and an IPv4-mapped address counts as the
 * IPv4 address it carries (a dual-stack socket reports IPv4 callers that way).
 */
export function ipSubject(address: string | undefined): string {
  if (address === undefined) return UNKNOWN_IP_SUBJECT;
  const trimmed = address.trim();
  const ipv4 = parseIpv4(trimmed);
  if (ipv4 !== undefined) return ipv4.join('.');
  const ipv6 = parseIpv6(trimmed);
  if (ipv6 === undefined) return UNKNOWN_IP_SUBJECT;
  if (isIpv4Mapped(ipv6)) return [ipv6[6]! >> 8, ipv6[6]! & 255, ipv6[7]! >> 8, ipv6[7]! & 255].join('.');
  return `${ipv6
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(':')}::/64`;
}

const OCTET = /^(?:0|[1-9][0-9]{0,2})$/;
const GROUP = /^[0-9A-Fa-f]{1,4}$/;

/** Four decimal octets without leading zeros (a leading zero reads as octal to some parsers: refused, not guessed). */
function parseIpv4(text: string): number[] | undefined {
  const parts = text.split('.');
  if (parts.length !== 4 || !parts.every((part) => OCTET.test(part))) return undefined;
  const octets = parts.map(Number);
  return octets.every((octet) => octet <= 255) ? octets : undefined;
}

/** The eight 16-bit groups of an IPv6 address (RFC 4291 text forms), or undefined. */
function parseIpv6(text: string): number[] | undefined {
  let body = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  // A zone id (fe80::1%eth0) names the sender's interface, not the address.
  const zone = body.indexOf('%');
  if (zone !== -1) {
    if (zone === body.length - 1) return undefined;
    body = body.slice(0, zone);
  }
  if (body.length === 0 || body.length > 45) return undefined;
  const halves = body.split('::');
  if (halves.length > 2) return undefined;
  const head = groupsOf(halves[0]!);
  const tail = halves.length === 2 ? groupsOf(halves[1]!) : [];
  if (head === undefined || tail === undefined) return undefined;
  if (halves.length === 1) return head.length === 8 ? head : undefined;
  const missing = 8 - head.length - tail.length;
  // "::" stands for at least one group of zeros.
  if (missing < 1) return undefined;
  return [...head, ...new Array<number>(missing).fill(0), ...tail];
}

/** The groups of one side of "::": hex groups, the last of which may be a dotted IPv4 (two groups). */
function groupsOf(side: string): number[] | undefined {
  if (side === '') return [];
  const parts = side.split(':');
  const groups: number[] = [];
  for (const [index, part] of parts.entries()) {
    if (index === parts.length - 1 && part.includes('.')) {
      const octets = parseIpv4(part);
      if (octets === undefined) return undefined;
      groups.push((octets[0]! << 8) | octets[1]!, (octets[2]! << 8) | octets[3]!);
    } else if (GROUP.test(part)) {
      groups.push(Number.parseInt(part, 16));
    } else {
      return undefined;
    }
  }
  return groups;
}

/** ::ffff:0:0/96 (RFC 4291 2.5.5.2). */
function isIpv4Mapped(groups: number[]): boolean {
  return groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff;
}
