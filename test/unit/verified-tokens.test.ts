// The verified-token cache: an entry lives until its token's exp, is a copy each time, and the oldest goes when full.
import { describe, expect, it } from 'vitest';
import type { Principal } from '../../lib/auth/claims.ts';
import { createVerifiedTokens } from '../../lib/auth/verified-tokens.ts';

const principal = (n: number, expiresAt: number): Principal => ({
  userId: `0190a000-0000-7000-8000-${String(n).padStart(12, '0')}`,
  sessionId: '0190a000-0000-7000-8000-000000000000',
  jti: `jti-${n}`,
  expiresAt,
});

describe('createVerifiedTokens', () => {
  it('answers an entry while now < expiresAt and forgets it from then on', () => {
    const tokens = createVerifiedTokens();
    tokens.set('d1', principal(1, 1_000));
    expect(tokens.get('d1', 999)?.jti).toBe('jti-1');
    expect(tokens.get('d1', 1_000)).toBeUndefined();
    expect(tokens.get('d1', 999)).toBeUndefined();
    expect(tokens.get('d2', 0)).toBeUndefined();
  });

  it('evicts the oldest entry once full', () => {
    const tokens = createVerifiedTokens(3);
    for (const n of [1, 2, 3, 4]) tokens.set(`d${n}`, principal(n, 1_000));
    expect(tokens.get('d1', 0)).toBeUndefined();
    expect([2, 3, 4].map((n) => tokens.get(`d${n}`, 0)?.jti)).toEqual(['jti-2', 'jti-3', 'jti-4']);
  });

  it('keeps its own copy: neither the principal stored nor one answered changes what it answers next', () => {
    const tokens = createVerifiedTokens();
    const stored = principal(1, 1_000);
    tokens.set('d1', stored);
    stored.userId = 'changed';
    const answered = tokens.get('d1', 0) as Principal;
    answered.jti = 'changed';
    expect(tokens.get('d1', 0)).toEqual(principal(1, 1_000));
  });
});
