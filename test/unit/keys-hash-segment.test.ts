// hashSegment: keyed, deterministic, the right shape; emails are normalised before hashing.
import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hashEmail, hashSegment, KeyError, normalizeEmail, parseHashedSegment } from '../../lib/keys/index.ts';
import { HASH_KEY } from './keys-arbitraries.ts';

const hashKey = fc.string({ unit: 'binary', minLength: 32, maxLength: 80 });

describe('hashSegment', () => {
  it('is HMAC-SHA256(secretKey, value) as 64 lowercase hex', async () => {
    await fc.assert(
      fc.asyncProperty(hashKey, fc.string({ unit: 'binary' }), async (key, value) => {
        const hash = await hashSegment(key, value);
        expect(hash).toMatch(/^[0-9a-f]{64}$/);
        expect(hash).toBe(createHmac('sha256', key).update(value, 'utf8').digest('hex'));
      }),
    );
  });

  it('answers HMAC-SHA256 again for values it remembers, past the values and keys it remembers (lib/keys/hash-segment.ts)', async () => {
    const keys = Array.from({ length: 6 }, (_, k) => `${HASH_KEY}-${k}`);
    const values = Array.from({ length: 4_200 }, (_, i) => `value-${i}`);
    const oracle = (key: string, value: string) => createHmac('sha256', key).update(value, 'utf8').digest('hex');
    for (const round of [1, 2]) {
      for (const value of values) expect(await hashSegment(HASH_KEY, value), `${value}, round ${round}`).toBe(oracle(HASH_KEY, value));
      for (const key of keys) expect(await hashSegment(key, 'value-1'), `${key}, round ${round}`).toBe(oracle(key, 'value-1'));
    }
  });

  it('answers a value used on and off among thousands of others with its HMAC each time', async () => {
    const oracle = (value: string) => createHmac('sha256', HASH_KEY).update(value, 'utf8').digest('hex');
    for (let i = 0; i < 4_200; i++) {
      await hashSegment(HASH_KEY, `passing-${i}`);
      if (i % 100 === 0) expect(await hashSegment(HASH_KEY, 'busy-subject')).toBe(oracle('busy-subject'));
    }
    expect(await hashSegment(HASH_KEY, 'passing-0')).toBe(oracle('passing-0'));
  });

  it('is deterministic for one key and differs across keys', async () => {
    await fc.assert(
      fc.asyncProperty(hashKey, hashKey, fc.string({ unit: 'binary' }), async (keyA, keyB, value) => {
        fc.pre(keyA !== keyB);
        expect(await hashSegment(keyA, value)).toBe(await hashSegment(keyA, value));
        expect(await hashSegment(keyA, value)).not.toBe(await hashSegment(keyB, value));
      }),
    );
  });

  it('differs across values', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), async (a, b) => {
        fc.pre(a !== b);
        expect(await hashSegment(HASH_KEY, a)).not.toBe(await hashSegment(HASH_KEY, b));
      }),
    );
  });

  it('refuses a short key without echoing it', async () => {
    for (const key of ['', 'short', 'x'.repeat(31)]) {
      const error = await hashSegment(key, 'value').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(KeyError);
      if (key.length > 0) expect((error as KeyError).message).not.toContain(key);
    }
  });
});

describe('hashEmail', () => {
  it('hashes the trimmed lower-case email, so case and surrounding space do not matter', async () => {
    await fc.assert(
      fc.asyncProperty(fc.emailAddress(), fc.constantFrom('', ' ', '\t', '  \n'), async (email, pad) => {
        const variant = `${pad}${email.toUpperCase()}${pad}`;
        expect(normalizeEmail(variant)).toBe(email.toLowerCase());
        expect(await hashEmail(HASH_KEY, variant)).toBe(await hashSegment(HASH_KEY, email.toLowerCase()));
      }),
    );
  });
});

describe('parseHashedSegment', () => {
  it('accepts a stored digest and refuses anything else', async () => {
    const hash = await hashSegment(HASH_KEY, 'someone@example.com');
    expect(parseHashedSegment(String(hash))).toBe(hash);
    for (const bad of ['someone@example.com', hash.toUpperCase(), hash.slice(1), `${hash}0`, undefined, 42]) {
      expect(() => parseHashedSegment(bad)).toThrow(KeyError);
    }
  });
});
