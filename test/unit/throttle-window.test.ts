// Which counter a throttle hit lands on, and what retry-after says: pure parts of lib/runtime/throttle, no Redis.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Config } from '../../lib/config/index.ts';
import { auditKey, createKeyspace } from '../../lib/keys/index.ts';
import { retryAfter, THROTTLE_LIMITS, throttleWindow } from '../../lib/runtime/throttle/index.ts';

const keys = createKeyspace({ prefix: 'mhpay', env: 'prod' });
const config = { indexHashKey: 'unit-test-index-hash-key-0123456789abcdef' } as Config;
const ORG = '0192f0c1-0000-7000-8000-000000000001';
const USER = '0192f0c1-0000-7000-8000-0000000000aa';
const at = (ms: number) => ({ keys, config, clock: { now: () => ms } });

describe('throttleWindow', () => {
  it('puts every moment of one fixed window on one key, with the seconds left in it, and the next window on another', async () => {
    const { windowSeconds } = THROTTLE_LIMITS['invite-create'];
    const target = { action: 'invite-create', scope: { kind: 'org', id: ORG }, subject: ORG } as const;
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 4_000_000_000 }), async (seconds) => {
        const here = await throttleWindow(at(seconds * 1000 + 999), target);
        const start = seconds - (seconds % windowSeconds);
        expect(here.ttlSeconds).toBe(start + windowSeconds - seconds);
        expect(here.ttlSeconds).toBeGreaterThanOrEqual(1);
        expect(here.ttlSeconds).toBeLessThanOrEqual(windowSeconds);
        expect((await throttleWindow(at(start * 1000), target)).key).toBe(here.key);
        expect((await throttleWindow(at((start + windowSeconds) * 1000), target)).key).not.toBe(here.key);
      }),
      { numRuns: 50 },
    );
  });

  it("makes a registry key in the subject's scope that names no raw id outside its hash tag", async () => {
    const window = await throttleWindow(at(Date.UTC(2026, 0, 1)), {
      action: 'invite-accept',
      scope: { kind: 'user', id: USER },
      subject: USER,
    });
    expect(window.limit).toBe(THROTTLE_LIMITS['invite-accept'].limit);
    expect(window.key.startsWith(`mhpay:prod:user:{${USER}}:throttle:counter:invite-accept.`)).toBe(true);
    expect(window.key.split('}')[1]).not.toContain(USER);
    expect(auditKey(window.key, window.ttlSeconds)).toMatchObject({ entry: { name: 'throttleCounter' }, findings: [] });
  });
});

describe('retryAfter', () => {
  it.each([
    [120, 300, 120],
    [0, 300, 1],
    [0.2, 300, 1],
    [900, 300, 300],
    ['120', 300, 300],
    [undefined, 42, 42],
  ])('a TTL of %s with %s s left in the window → %s', (ttl, windowLeft, expected) => {
    expect(retryAfter(ttl, windowLeft)).toBe(expected);
  });
});
