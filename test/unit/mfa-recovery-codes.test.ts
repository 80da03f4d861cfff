// Recovery codes as pure functions: their shape and entropy, the spellings a person may type, and a hash bound to its user.
import { describe, expect, it } from 'vitest';
import { generateRecoveryCodes, normalizeRecoveryCode, RECOVERY_CODE_COUNT, recoveryCodeHash } from '../../lib/auth/mfa/recovery-codes.ts';

const KEY = 'unit-test-index-hash-key-0123456789abcdef';

describe('recovery codes', () => {
  it('ten distinct codes of 10 base32 characters (50 bits), written xxxxx-xxxxx', () => {
    const codes = generateRecoveryCodes();
    expect(codes).toHaveLength(RECOVERY_CODE_COUNT);
    expect(new Set(codes).size).toBe(RECOVERY_CODE_COUNT);
    for (const code of codes) expect(code).toMatch(/^[a-z2-7]{5}-[a-z2-7]{5}$/);
    // Every character position takes many values over a few hundred codes: nothing is fixed by the encoding.
    const many = Array.from({ length: 40 }, () => generateRecoveryCodes()).flat();
    for (let position = 0; position < 11; position++) {
      if (position === 5) continue;
      expect(new Set(many.map((code) => code[position])).size, `position ${position}`).toBeGreaterThan(16);
    }
  });

  it('accepts any case, spaces and hyphens, and nothing that is not a code', () => {
    expect(normalizeRecoveryCode('abcde-fg234')).toBe('abcdefg234');
    expect(normalizeRecoveryCode(' ABCDE FG234 ')).toBe('abcdefg234');
    expect(normalizeRecoveryCode('abcdefg234')).toBe('abcdefg234');
    for (const bad of ['', 'abcde-fg23', 'abcde-fg2345', 'abcde-fg230', 'abcde-fg23!', '123456']) {
      expect(normalizeRecoveryCode(bad), bad).toBeUndefined();
    }
  });

  it("hashes to 64 hex characters, bound to the user: one user's code never matches another's row", async () => {
    const a = await recoveryCodeHash(KEY, '018f0000-0000-7000-8000-000000000001', 'abcdefg234');
    const b = await recoveryCodeHash(KEY, '018f0000-0000-7000-8000-000000000002', 'abcdefg234');
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(a).not.toBe(b);
    expect(await recoveryCodeHash(KEY, '018f0000-0000-7000-8000-000000000001', 'abcdefg234')).toBe(a);
    expect(await recoveryCodeHash(`${KEY}x`, '018f0000-0000-7000-8000-000000000001', 'abcdefg234')).not.toBe(a);
  });
});
