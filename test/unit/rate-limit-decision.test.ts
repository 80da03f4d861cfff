// The rate limiter's pure parts: what a count's reply decides (remaining, retry-after), the RateLimit fields, and the
// isolate's memory of a refusal (docs/design/limits.md#api-rate-limits).
import { describe, expect, it } from 'vitest';
import { RateLimitMemo } from '../../lib/rate-limit-memo.ts';
import { decide } from '../../lib/runtime/ratelimit/decision.ts';
import { rateLimitHeaders } from '../../lib/runtime/ratelimit/index.ts';
import { rememberedRefusal, rememberRefusal } from '../../lib/runtime/ratelimit/remembered.ts';

const WINDOW = 60_000;
const windows = (elapsedMs: number) => ({ previousWeight: 1 - elapsedMs / WINDOW, windowLeftMs: WINDOW - elapsedMs });
const limit = (kind: 'user-route' | 'user' | 'tenant', quota: number, current: number, previous: number) => ({
  kind,
  quota,
  current,
  previous,
});

describe('decide', () => {
  it('an admitted request: what each limit has left of its sliding count, resetting at the window end', () => {
    const decision = decide({
      admitted: true,
      limits: [limit('user-route', 100, 10, 30), limit('tenant', 10_000, 1, 0)],
      windows: windows(45_000),
    });
    // floor(30 × 0.25) + 10 = 17 counted.
    expect(decision).toEqual({
      allowed: true,
      limits: [
        { kind: 'user-route', quota: 100, remaining: 83, resetSeconds: 15 },
        { kind: 'tenant', quota: 10_000, remaining: 9_999, resetSeconds: 15 },
      ],
    });
  });

  it('its own window full: retry just past the window end (the count then only decays)', () => {
    const decision = decide({ admitted: false, limits: [limit('user', 1_000, 1_000, 0)], windows: windows(12_500) });
    expect(decision).toMatchObject({ allowed: false, retryAfterSeconds: 48, refused: ['user'] });
  });

  it('full through the previous window: retry once its weight has decayed enough, before the window ends', () => {
    // At 20 s: floor(100 × 2/3) + 50 = 116. Room once 100 × (1 - e/60) < 50, i.e. past 30 s: 10.001 s on, so 11.
    const decision = decide({
      admitted: false,
      limits: [limit('user-route', 100, 50, 100), limit('user', 1_000, 50, 100)],
      windows: windows(20_000),
    });
    expect(decision).toEqual({
      allowed: false,
      retryAfterSeconds: 11,
      refused: ['user-route'],
      limits: [
        { kind: 'user-route', quota: 100, remaining: 0, resetSeconds: 11 },
        { kind: 'user', quota: 1_000, remaining: 884, resetSeconds: 40 },
      ],
    });
    // Checked against the formula itself: at 30 s still full, just after it not.
    const counted = (elapsed: number) => Math.floor(100 * (1 - elapsed / WINDOW)) + 50;
    expect(counted(30_000)).toBe(100);
    expect(counted(30_001)).toBe(99);
  });
});

describe('rateLimitHeaders', () => {
  it('the httpapi structured-field lists: policy q and w, state r and t', () => {
    const headers = rateLimitHeaders({
      allowed: true,
      limits: [
        { kind: 'user-route', quota: 100, remaining: 99, resetSeconds: 30 },
        { kind: 'user', quota: 1_000, remaining: 999, resetSeconds: 30 },
      ],
    });
    expect(headers).toEqual({
      'ratelimit-policy': '"user-route";q=100;w=60, "user";q=1000;w=60',
      ratelimit: '"user-route";r=99;t=30, "user";r=999;t=30',
    });
  });
});

describe('the isolate memory of a refusal', () => {
  const target = { userId: '0192f0c1-0000-7000-8000-000000000001', route: 'GET /auth/sessions', organizationId: undefined };
  const refusal = {
    allowed: false as const,
    retryAfterSeconds: 20,
    refused: ['user-route' as const],
    limits: [
      { kind: 'user-route' as const, quota: 100, remaining: 0, resetSeconds: 20 },
      { kind: 'user' as const, quota: 1_000, remaining: 900, resetSeconds: 20 },
    ],
  };

  it('refuses the same caller on the same route until the retry-after ends, counting it down; not another route', () => {
    const deps = { rateLimits: new RateLimitMemo() };
    rememberRefusal(deps, target, refusal, 1_000);
    expect(rememberedRefusal(deps, target, 6_000)).toMatchObject({ retryAfterSeconds: 15, refused: ['user-route'] });
    expect(rememberedRefusal(deps, { ...target, route: 'GET /auth/context' }, 6_000)).toBeUndefined();
    expect(rememberedRefusal(deps, target, 21_000)).toBeUndefined();
  });

  it('logs one outage once: the first failure only, until a count answers', () => {
    const memo = new RateLimitMemo();
    expect(memo.failed(0)).toBe(true);
    expect(memo.skipping(4_999)).toBe(true);
    expect(memo.skipping(5_000)).toBe(false);
    expect(memo.failed(5_000)).toBe(false);
    memo.answered();
    expect(memo.failed(9_000)).toBe(true);
  });
});
