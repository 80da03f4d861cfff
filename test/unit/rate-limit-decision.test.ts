// The rate limiter's pure parts: what a count's reply decides (remaining, retry-after), the RateLimit fields, and the
// isolate's memory of a refusal (docs/design/limits.md#api-rate-limits).
import { describe, expect, it } from 'vitest';
import { RateLimitMemo } from '../../lib/rate-limit-memo.ts';
import { combineAcross } from '../../lib/runtime/ratelimit/across-organisations.ts';
import { decide, withoutTenant } from '../../lib/runtime/ratelimit/decision.ts';
import { settleWithPlan } from '../../lib/runtime/ratelimit/settle-plan.ts';
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
    rememberRefusal(deps, target, refusal, 1_000, true);
    expect(rememberedRefusal(deps, target, 6_000)).toMatchObject({ retryAfterSeconds: 15, refused: ['user-route'] });
    expect(rememberedRefusal(deps, { ...target, route: 'GET /auth/context' }, 6_000)).toBeUndefined();
    expect(rememberedRefusal(deps, target, 21_000)).toBeUndefined();
  });

  it("remembers a tenant's refusal only for the member the role check admitted, never for the organisation", () => {
    const organizationId = '0192f0c1-0000-7000-8000-0000000000aa';
    const member = { userId: '0192f0c1-0000-7000-8000-000000000002', route: 'GET /orgs/{orgId}/members', organizationId };
    const tenantRefusal = {
      allowed: false as const,
      retryAfterSeconds: 30,
      refused: ['tenant' as const],
      limits: [{ kind: 'tenant' as const, quota: 30, remaining: 0, resetSeconds: 30 }],
    };
    const deps = { rateLimits: new RateLimitMemo() };
    rememberRefusal(deps, member, tenantRefusal, 0, false);
    expect(rememberedRefusal(deps, member, 1_000)).toBeUndefined();
    rememberRefusal(deps, member, tenantRefusal, 0, true);
    expect(rememberedRefusal(deps, member, 1_000)).toMatchObject({ refused: ['tenant'], retryAfterSeconds: 29 });
    // Another caller naming the organisation (an outsider, or another member) meets no remembered refusal.
    expect(rememberedRefusal(deps, { ...member, userId: '0192f0c1-0000-7000-8000-000000000003' }, 1_000)).toBeUndefined();
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

describe('what a caller the role check did not admit sees', () => {
  it("never the tenant's limit; a refusal by the tenant alone leaves their own limits with room", () => {
    const decision = decide({
      admitted: false,
      limits: [limit('user-route', 100, 3, 0), limit('user', 1_000, 3, 0), limit('tenant', 30, 30, 0)],
      windows: windows(30_000),
    });
    expect(decision).toMatchObject({ allowed: false, refused: ['tenant'] });
    expect(withoutTenant(decision)).toEqual({
      allowed: true,
      limits: [
        { kind: 'user-route', quota: 100, remaining: 97, resetSeconds: 30 },
        { kind: 'user', quota: 1_000, remaining: 997, resetSeconds: 30 },
      ],
    });
  });

  it('a refusal by their own limit keeps its own retry-after, not the longer one of the tenant', () => {
    // user-route full through the previous window (room in 11 s), the tenant full in its own window (31 s).
    const decision = decide({
      admitted: false,
      limits: [limit('user-route', 100, 50, 100), limit('user', 1_000, 50, 100), limit('tenant', 30, 30, 0)],
      windows: windows(20_000),
    });
    expect(decision).toMatchObject({ retryAfterSeconds: 41, refused: ['user-route', 'tenant'] });
    expect(withoutTenant(decision)).toMatchObject({ allowed: false, retryAfterSeconds: 11, refused: ['user-route'] });
  });
});

describe("an unbound token's user-scope count beside the organisation's", () => {
  const org = (userQuota: number, userCurrent: number) =>
    decide({
      admitted: true,
      limits: [limit('user-route', 100, 1, 0), limit('user', userQuota, userCurrent, 0), limit('tenant', 10_000, 1, 0)],
      windows: windows(30_000),
    });
  const across = (userCurrent: number) =>
    decide({
      admitted: userCurrent < 1_000,
      limits: [limit('user-route', 100, 1, 0), limit('user', 1_000, userCurrent, 0)],
      windows: windows(30_000),
    });

  it("refuses where the user's own count across organisations is full", () => {
    const combined = combineAcross(org(1_000, 1), across(1_000));
    expect(combined).toMatchObject({ allowed: false, refused: ['user'] });
    expect(combined.limits.find((state) => state.kind === 'user')).toMatchObject({ remaining: 0, userScope: true });
  });

  it('shows the tighter of the two; a plan that raises the user quota is not undone by the user scope', () => {
    const tighter = combineAcross(org(1_000, 1), across(400));
    expect(tighter).toMatchObject({ allowed: true });
    expect(tighter.limits.find((state) => state.kind === 'user')).toMatchObject({ remaining: 600, userScope: true });
    expect(combineAcross(org(5_000, 1), across(1_000))).toMatchObject({ allowed: true });
  });
});

describe('a count that missed the plan entry, settled under the plan', () => {
  const reply = (current: number) => ({
    admitted: true,
    planFound: false,
    limits: [limit('user-route', 100, current, 0), limit('user', 1_000, current, 0), limit('tenant', 10_000, current, 0)],
    windows: {
      ...windows(30_000),
      scope: { kind: 'org' as const, id: 'x' },
      kinds: ['user-route' as const, 'user' as const, 'tenant' as const],
      keys: [],
    },
  });
  const plan = { 'user-route': 100, user: 1_000, tenant: 5 };

  it('admits the fifth request of a plan of 5 and refuses the sixth, whose counts are given back', () => {
    expect(settleWithPlan(reply(5), plan)).toMatchObject({ giveBack: false, decision: { allowed: true } });
    const sixth = settleWithPlan(reply(6), plan);
    expect(sixth).toMatchObject({ giveBack: true, decision: { allowed: false, refused: ['tenant'] } });
    expect(sixth.decision.limits.find((state) => state.kind === 'tenant')).toMatchObject({ quota: 5, remaining: 0 });
  });
});
