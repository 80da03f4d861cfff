// UUID validation and the "N" form used for index members; KeyError never repeats what it refused.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isUuid, KeyError, normalizeUuid, requireEnum, toUuidN } from '../../lib/keys/index.ts';
import { hostileString, looksLikeUuid } from './keys-arbitraries.ts';

describe('toUuidN', () => {
  it('turns every UUID into its N form: 32 lowercase hex', () => {
    fc.assert(
      fc.property(fc.uuid(), fc.boolean(), (uuid, upper) => {
        const n = toUuidN(upper ? uuid.toUpperCase() : uuid);
        expect(n).toMatch(/^[0-9a-f]{32}$/);
        expect(n).toBe(uuid.toLowerCase().replace(/-/g, ''));
      }),
    );
  });

  it('throws KeyError on anything else', () => {
    fc.assert(
      fc.property(hostileString, (value) => {
        if (looksLikeUuid(value)) return;
        expect(() => toUuidN(value)).toThrow(KeyError);
      }),
    );
  });
});

describe('normalizeUuid', () => {
  it('accepts exactly the canonical shape, either case, and returns lower case', () => {
    fc.assert(
      fc.property(hostileString, (value) => {
        expect(isUuid(value)).toBe(looksLikeUuid(value));
        if (looksLikeUuid(value)) expect(normalizeUuid(value, 'id')).toBe(value.toLowerCase());
        else expect(() => normalizeUuid(value, 'id')).toThrow(KeyError);
      }),
    );
  });

  it('refuses non-strings', () => {
    for (const value of [undefined, null, 42, {}, ['0192f0c1-0000-7000-8000-000000000001']]) {
      expect(() => normalizeUuid(value, 'id')).toThrow(KeyError);
    }
  });
});

describe('requireEnum', () => {
  it('passes allow-listed values and refuses the rest', () => {
    const allowed = ['login', 'mfa-verify'] as const;
    expect(requireEnum('login', allowed, 'action')).toBe('login');
    for (const bad of ['LOGIN', 'login ', '', 'toString', 'constructor'])
      expect(() => requireEnum(bad, allowed, 'action')).toThrow(KeyError);
  });
});

describe('KeyError', () => {
  it('names the field but never repeats the refused value', () => {
    const secretLike = fc
      .tuple(fc.constantFrom('sk_live_', 'whsec_', 'pa55:', 'Bearer '), fc.string({ unit: 'binary', minLength: 6 }))
      .map(([a, b]) => a + b);
    fc.assert(
      fc.property(secretLike, (secret) => {
        for (const attempt of [
          () => normalizeUuid(secret, 'orgId'),
          () => toUuidN(secret),
          () => requireEnum(secret, ['login'], 'action'),
        ]) {
          let caught: unknown;
          try {
            attempt();
          } catch (error) {
            caught = error;
          }
          expect(caught).toBeInstanceOf(KeyError);
          const error = caught as KeyError;
          for (const text of [error.message, String(error), JSON.stringify(error), error.stack ?? '', JSON.stringify({ ...error })]) {
            expect(text).not.toContain(secret);
          }
        }
      }),
    );
    expect(() => normalizeUuid('x', 'orgId')).toThrow(/orgId/);
  });
});
