// TOTP against the RFC 6238 SHA-1 vectors, the ±1-step verifier and which step it reports, and base32 (RFC 4648).
import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { base32Decode, base32Encode, matchTotp, totpCode, totpStep } from '../../lib/crypto/index.ts';

const RFC_SECRET = new TextEncoder().encode('12345678901234567890');

describe('totpCode', () => {
  // RFC 6238 Appendix B, the SHA-1 column (8 digits).
  it.each([
    [59, '94287082'],
    [1_111_111_109, '07081804'],
    [1_111_111_111, '14050471'],
    [1_234_567_890, '89005924'],
    [2_000_000_000, '69279037'],
    [20_000_000_000, '65353130'],
  ])('at %i s is %s', async (seconds, expected) => {
    expect(await totpCode(RFC_SECRET, totpStep(seconds * 1000), 8)).toBe(expected);
  });

  it('gives 6 digits by default: the last 6 of the 8-digit value', async () => {
    expect(await totpCode(RFC_SECRET, totpStep(59_000))).toBe('287082');
    expect(await totpCode(RFC_SECRET, totpStep(1_111_111_109_000))).toBe('081804');
  });

  it("agrees with node:crypto's HMAC-SHA1 for any secret and step", async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ minLength: 10, maxLength: 64 }), fc.integer({ min: 0, max: 2 ** 40 }), async (secret, step) => {
        const counter = Buffer.alloc(8);
        counter.writeBigUInt64BE(BigInt(step));
        const mac = createHmac('sha1', secret).update(counter).digest();
        const offset = mac[19]! & 0x0f;
        const value = (mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000;
        expect(await totpCode(secret, step)).toBe(String(value).padStart(6, '0'));
      }),
      { numRuns: 100 },
    );
  });
});

describe('matchTotp', () => {
  const now = 1_111_111_111_000;
  const step = totpStep(now);

  it('returns the step the code belongs to: the current one, or one step either side', async () => {
    for (const offset of [0, -1, 1]) {
      expect(await matchTotp(RFC_SECRET, await totpCode(RFC_SECRET, step + offset), now)).toBe(step + offset);
    }
  });

  it('refuses codes two steps away, wrong codes and anything that is not six digits', async () => {
    for (const offset of [-2, 2, 10]) {
      expect(await matchTotp(RFC_SECRET, await totpCode(RFC_SECRET, step + offset), now)).toBeUndefined();
    }
    const valid = new Set(await Promise.all([-1, 0, 1].map((d) => totpCode(RFC_SECRET, step + d))));
    const wrong = ['000000', '123456', '999999'].find((code) => !valid.has(code))!;
    expect(await matchTotp(RFC_SECRET, wrong, now)).toBeUndefined();
    const code = await totpCode(RFC_SECRET, step);
    for (const bad of ['', code.slice(1), `${code}0`, ` ${code}`, code.replace(/./, 'a'), '１２３４５６']) {
      expect(await matchTotp(RFC_SECRET, bad, now)).toBeUndefined();
    }
  });

  it('takes the drift and the number of digits as parameters', async () => {
    const two = await totpCode(RFC_SECRET, step + 2);
    expect(await matchTotp(RFC_SECRET, two, now, { drift: 2 })).toBe(step + 2);
    expect(await matchTotp(RFC_SECRET, await totpCode(RFC_SECRET, step + 1), now, { drift: 0 })).toBeUndefined();
    expect(await matchTotp(RFC_SECRET, '14050471', now, { digits: 8 })).toBe(step);
  });

  it('does not match under another secret', async () => {
    const code = await totpCode(RFC_SECRET, step);
    const other = new TextEncoder().encode('12345678901234567891');
    const others = await Promise.all([-1, 0, 1].map((d) => totpCode(other, step + d)));
    if (!others.includes(code)) expect(await matchTotp(other, code, now)).toBeUndefined();
  });
});

describe('base32', () => {
  // RFC 4648 §10 (padding dropped on encode, accepted on decode).
  it.each([
    ['', ''],
    ['f', 'MY======'],
    ['fo', 'MZXQ===='],
    ['foo', 'MZXW6==='],
    ['foob', 'MZXW6YQ='],
    ['fooba', 'MZXW6YTB'],
    ['foobar', 'MZXW6YTBOI======'],
  ])('%j is %s', (text, encoded) => {
    const bytes = new TextEncoder().encode(text);
    expect(base32Encode(bytes)).toBe(encoded.replace(/=+$/, ''));
    expect(new TextDecoder().decode(base32Decode(encoded))).toBe(text);
    expect(new TextDecoder().decode(base32Decode(encoded.replace(/=+$/, '').toLowerCase()))).toBe(text);
  });

  it('round-trips any bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 100 }), (bytes) => {
        const encoded = base32Encode(bytes);
        expect(encoded).toMatch(/^[A-Z2-7]*$/);
        expect(base32Decode(encoded)).toEqual(bytes);
      }),
    );
  });

  it('refuses other alphabets, impossible lengths and non-zero leftover bits, without echoing the input', () => {
    for (const bad of ['M1', 'MZXW6!', 'M', 'MZX', 'MZXW6Y', 'MZ', 'MZXQ0', 'secret-canary']) {
      // One fixed message: the input is a secret and never appears in it.
      expect(() => base32Decode(bad), bad).toThrow(new TypeError('invalid base32 string'));
    }
    // 'MZ' has leftover bits set ('MY' is the canonical spelling of "f").
    expect(() => base32Decode('MZ')).toThrow('invalid base32 string');
  });
});
