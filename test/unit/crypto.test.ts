// WebCrypto helpers: known vectors, Node's own crypto as an independent oracle, round trips and edge cases.
import { createHash, createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  base64urlDecode,
  base64urlEncode,
  bytesToHex,
  bytesToUuid,
  hmacSha256Hex,
  randomBytes,
  randomToken,
  sha256Hex,
  timingSafeEqual,
  uuidToBytes,
} from '../../lib/crypto/index.ts';

describe('sha256Hex', () => {
  it('matches the FIPS 180-2 test vectors', async () => {
    expect(await sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(await sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(await sha256Hex('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')).toBe(
      '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    );
  });

  it('hashes strings as UTF-8 and bytes as given, like node:crypto', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'binary' }), async (text) => {
        expect(await sha256Hex(text)).toBe(createHash('sha256').update(text, 'utf8').digest('hex'));
      }),
    );
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 512 }), async (bytes) => {
        expect(await sha256Hex(bytes)).toBe(createHash('sha256').update(bytes).digest('hex'));
      }),
    );
  });
});

describe('hmacSha256Hex', () => {
  it('matches RFC 4231 test cases 1 and 2', async () => {
    const case1Key = new Uint8Array(20).fill(0x0b);
    expect(await hmacSha256Hex(case1Key, 'Hi There')).toBe('b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7');
    expect(await hmacSha256Hex('Jefe', 'what do ya want for nothing?')).toBe(
      '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    );
  });

  it('agrees with node:crypto for arbitrary keys and values', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'binary', minLength: 1 }), fc.string({ unit: 'binary' }), async (key, value) => {
        expect(await hmacSha256Hex(key, value)).toBe(createHmac('sha256', key).update(value, 'utf8').digest('hex'));
      }),
    );
  });

  it('refuses an empty key, which would make the MAC a public hash', async () => {
    await expect(hmacSha256Hex('', 'value')).rejects.toThrow(RangeError);
    await expect(hmacSha256Hex(new Uint8Array(0), 'value')).rejects.toThrow(RangeError);
  });

  it('keeps each key apart after importing it once, also past the imported keys it remembers (lib/crypto/hmac.ts)', async () => {
    const keys = Array.from({ length: 40 }, (_, i) => `key-${i}-of-at-least-sixteen-chars`);
    for (const round of [1, 2]) {
      for (const key of keys) {
        expect(await hmacSha256Hex(key, 'value'), `${key}, round ${round}`).toBe(createHmac('sha256', key).update('value').digest('hex'));
      }
    }
  });
});

describe('base64url', () => {
  it('round-trips arbitrary bytes and agrees with Node base64url', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2048 }), (bytes) => {
        const text = base64urlEncode(bytes);
        expect(text).toMatch(/^[A-Za-z0-9_-]*$/);
        expect(text).toBe(Buffer.from(bytes).toString('base64url'));
        expect(base64urlDecode(text)).toEqual(new Uint8Array(bytes));
      }),
    );
  });

  it('handles inputs larger than one encoding chunk', () => {
    const bytes = randomBytes(200_003);
    const text = base64urlEncode(bytes);
    expect(text).toBe(Buffer.from(bytes).toString('base64url'));
    expect(base64urlDecode(text)).toEqual(bytes);
  });

  it('refuses padding, standard-alphabet characters and impossible lengths without echoing the input', () => {
    for (const bad of ['YQ==', 'a+b/', 'abcde', 'ab cd', 'sk_live_secret!']) {
      expect(() => base64urlDecode(bad)).toThrow(TypeError);
      try {
        base64urlDecode(bad);
      } catch (error) {
        expect((error as Error).message).not.toContain(bad);
      }
    }
  });
});

describe('timingSafeEqual', () => {
  it('has the expected truth table for strings', () => {
    const cases: Array<[string, string, boolean]> = [
      ['', '', true],
      ['abc', 'abc', true],
      ['abc', 'abd', false],
      ['abc', 'xbc', false],
      ['abc', 'ab', false],
      ['ab', 'abc', false],
      ['', 'a', false],
      ['a\u0000', 'a', false],
      ['é', 'e', false],
    ];
    for (const [a, b, expected] of cases) expect(timingSafeEqual(a, b), `${JSON.stringify(a)} vs ${JSON.stringify(b)}`).toBe(expected);
  });

  it('has the expected truth table for bytes', () => {
    const bytes = (...values: number[]) => new Uint8Array(values);
    expect(timingSafeEqual(bytes(), bytes())).toBe(true);
    expect(timingSafeEqual(bytes(1, 2, 3), bytes(1, 2, 3))).toBe(true);
    expect(timingSafeEqual(bytes(1, 2, 3), bytes(1, 2, 4))).toBe(false);
    expect(timingSafeEqual(bytes(1, 2, 3), bytes(1, 2))).toBe(false);
    expect(timingSafeEqual(bytes(1, 2), bytes(1, 2, 0))).toBe(false);
    expect(timingSafeEqual(bytes(0), bytes())).toBe(false);
  });

  it('equals === for arbitrary strings and byte-wise equality for arbitrary bytes', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), (a, b) => timingSafeEqual(a, b) === (a === b)));
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 8 }), fc.uint8Array({ maxLength: 8 }), (a, b) => {
        expect(timingSafeEqual(a, b)).toBe(Buffer.compare(a, b) === 0);
        expect(timingSafeEqual(a, new Uint8Array(a))).toBe(true);
      }),
    );
  });

  it('is false when a string is compared with bytes', () => {
    expect(timingSafeEqual('a' as unknown as Uint8Array, new Uint8Array([97]))).toBe(false);
  });
});

describe('randomBytes / randomToken', () => {
  it('returns the requested length, beyond the 64 KiB getRandomValues limit too', () => {
    expect(randomBytes(0)).toHaveLength(0);
    expect(randomBytes(33)).toHaveLength(33);
    const big = randomBytes(100_000);
    expect(big).toHaveLength(100_000);
    // The tail past the first chunk is filled as well: 34 464 zero bytes by chance is impossible in practice.
    expect(big.subarray(65_536).some((byte) => byte !== 0)).toBe(true);
  });

  it('refuses a negative or fractional length', () => {
    expect(() => randomBytes(-1)).toThrow(RangeError);
    expect(() => randomBytes(1.5)).toThrow(RangeError);
  });

  it('gives a 43-character base64url token of 32 bytes by default, never twice the same', () => {
    const tokens = new Set<string>();
    for (let i = 0; i < 1000; i++) {
      const token = randomToken();
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(base64urlDecode(token)).toHaveLength(32);
      tokens.add(token);
    }
    expect(tokens.size).toBe(1000);
    expect(base64urlDecode(randomToken(48))).toHaveLength(48);
  });

  it('refuses tokens shorter than 16 bytes', () => {
    expect(() => randomToken(15)).toThrow(RangeError);
  });
});

describe('uuid bytes and hex', () => {
  it('round-trips UUIDs through 16 bytes in lowercase canonical form', () => {
    fc.assert(
      fc.property(fc.uuid(), fc.boolean(), (uuid, upper) => {
        const bytes = uuidToBytes(upper ? uuid.toUpperCase() : uuid);
        expect(bytes).toHaveLength(16);
        expect(bytesToHex(bytes)).toBe(uuid.replace(/-/g, ''));
        expect(bytesToUuid(bytes)).toBe(uuid.toLowerCase());
      }),
    );
  });

  it('refuses anything but a canonical UUID, and byte arrays that are not 16 long', () => {
    for (const bad of [
      '',
      '{0192f0c1-0000-7000-8000-000000000001}',
      '0192f0c100007000800000000000000 1',
      '0192f0c1-0000-7000-8000-00000000000g',
      ' 0192f0c1-0000-7000-8000-000000000001',
    ]) {
      expect(() => uuidToBytes(bad)).toThrow(TypeError);
    }
    expect(() => bytesToUuid(new Uint8Array(15))).toThrow(RangeError);
  });
});
