// The subject of every per-address limiter (lib/runtime/throttle/ip-subject.ts): an IPv4 address as itself, an IPv6
// address as its /64 in every written form, an IPv4-mapped one as its IPv4 address, and anything else as "unknown".
// Node's own address parser and BlockList are the independent oracles.
import { readdirSync, readFileSync } from 'node:fs';
import { BlockList, isIP } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ipSubject, UNKNOWN_IP_SUBJECT } from '../../lib/runtime/throttle/index.ts';

const group = fc.integer({ min: 0, max: 0xffff });
const groups8 = fc.array(group, { minLength: 8, maxLength: 8 });
const isMapped = (g: number[]) => g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff;

/** Every text form of one address: expanded with leading zeros, short groups, "::" for the longest zero run, either case. */
function forms(g: number[]): string[] {
  const short = g.map((x) => x.toString(16));
  const padded = g.map((x) => x.toString(16).padStart(4, '0'));
  let best = { start: -1, length: 0 };
  for (let start = 0; start < 8; start++) {
    let length = 0;
    while (start + length < 8 && g[start + length] === 0) length++;
    if (length > best.length) best = { start, length };
  }
  const out = [short.join(':'), padded.join(':'), padded.join(':').toUpperCase()];
  if (best.length > 0) {
    out.push(`${short.slice(0, best.start).join(':')}::${short.slice(best.start + best.length).join(':')}`);
  }
  return out;
}

describe('ipSubject', () => {
  it('counts an IPv4 address as itself, and its IPv4-mapped IPv6 forms as the same address', () => {
    fc.assert(
      fc.property(fc.ipV4(), (v4) => {
        expect(ipSubject(v4)).toBe(v4);
        const [a, b, c, d] = v4.split('.').map(Number) as [number, number, number, number];
        const hex = `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
        for (const mapped of [
          `::ffff:${v4}`,
          `::FFFF:${v4}`,
          `0:0:0:0:0:ffff:${v4}`,
          `[::ffff:${v4}]`,
          `::ffff:${hex}`,
          `::ffff:${v4}%eth0`,
        ]) {
          expect(ipSubject(mapped)).toBe(v4);
        }
      }),
    );
  });

  it('gives every written form of an IPv6 address (zone id, brackets, case, compression) one subject: its /64', () => {
    fc.assert(
      fc.property(
        groups8.filter((g) => !isMapped(g)),
        fc.constantFrom('', '%eth0', '%25'),
        (g, zone) => {
          const subjects = new Set(forms(g).flatMap((form) => [ipSubject(form + zone), ipSubject(`[${form}]`)]));
          expect([...subjects]).toEqual([
            `${g
              .slice(0, 4)
              .map((x) => x.toString(16))
              .join(':')}::/64`,
          ]);
        },
      ),
    );
  });

  it('puts two IPv6 addresses in one bucket exactly when they share a /64 (node:net BlockList as the oracle)', () => {
    fc.assert(
      fc.property(fc.ipV6(), fc.ipV6(), fc.array(group, { minLength: 4, maxLength: 4 }), (a, b, tail) => {
        const subject = ipSubject(a);
        expect(subject).not.toBe(UNKNOWN_IP_SUBJECT);
        if (!subject.endsWith('/64')) return; // an IPv4-mapped address: the first property holds it
        const network = new BlockList();
        network.addSubnet(subject.slice(0, -'/64'.length), 64, 'ipv6');
        expect(network.check(a, 'ipv6')).toBe(true);
        const otherSubject = ipSubject(b);
        if (otherSubject.endsWith('/64')) expect(otherSubject === subject).toBe(network.check(b, 'ipv6'));
        // Another address of the same /64: the attacker's rotation lands in the same bucket.
        const sibling = `${subject.slice(0, -'::/64'.length)}:${tail.map((x) => x.toString(16)).join(':')}`;
        expect(ipSubject(sibling)).toBe(subject);
      }),
    );
  });

  // Zone ids are left out of the oracle's alphabet: node:net reads some of them differently, and they are stripped anyway.
  it('answers anything that is not an address with the one "unknown" bucket (node:net isIP as the oracle)', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string().filter((text) => !text.includes('%')),
          fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEF:.[]') }),
        ),
        (text) => {
          // ipSubject trims what the runtime reported (a header's spaces); node:net does not, so it is asked the same.
          const address = text.trim();
          const expected = isIP(address) !== 0 || isIP(address.replace(/^\[(.*)\]$/, '$1')) !== 0;
          expect(ipSubject(text) !== UNKNOWN_IP_SUBJECT).toBe(expected);
        },
      ),
      { numRuns: 2_000 },
    );
    for (const garbage of [
      undefined,
      '',
      'localhost',
      '1.2.3',
      '1.2.3.4.5',
      '256.1.1.1',
      '01.2.3.4',
      '1::2::3',
      ':::',
      '12345::',
      'fe80::1%',
      '[1.2.3.4]',
    ]) {
      expect(ipSubject(garbage)).toBe(UNKNOWN_IP_SUBJECT);
    }
  });
});

/** Each `subject:` of lib/ and functions/ that names an address, with where it is. */
function addressSubjects(file: string, text: string): Array<{ at: string; subject: string }> {
  return [...text.matchAll(/\bsubject:\s*([^,\n}]+)/g)]
    .filter((match) => /ip\b|ip\)|address/i.test(match[1]!))
    .map((match) => ({ at: `${file}:${text.slice(0, match.index).split('\n').length}`, subject: match[1]!.trim() }));
}

const notThroughIpSubject = (found: Array<{ subject: string }>) => found.filter(({ subject }) => !subject.startsWith('ipSubject('));

describe('every per-address limiter counts through ipSubject', () => {
  it('no throttle subject in lib/ or functions/ names an address except as ipSubject gives it', () => {
    const root = fileURLToPath(new URL('../..', import.meta.url));
    const found = ['lib', 'functions'].flatMap((dir) =>
      readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
        .filter((file) => file.endsWith('.ts'))
        .flatMap((file) => addressSubjects(`${dir}/${file}`, readFileSync(join(root, dir, file), 'utf8'))),
    );
    // The scan sees the limiters there are (the helper's own call and the resolve's), so an empty list is no accident.
    expect(found.length).toBeGreaterThanOrEqual(2);
    expect(notThroughIpSubject(found)).toEqual([]);
  });

  it('finds a raw address as a subject (positive control)', () => {
    const found = addressSubjects('x.ts', "throttle.hit(deps, { action: 'login-ip', subject: input.clientIp ?? 'unknown' });");
    expect(notThroughIpSubject(found)).toEqual([{ at: 'x.ts:1', subject: "input.clientIp ?? 'unknown'" }]);
  });
});
