// The eviction policy as INFO memory states it, and which policies each store may have (lib/redis/eviction.ts).
import { describe, expect, it } from 'vitest';
import { EVICTION_POLICIES, evictionPolicyFromInfo, evictionProblem } from '../../lib/redis/eviction.ts';

const info = (policy: string) =>
  `# Memory\r\nused_memory:1024\r\nmaxmemory:0\r\nmaxmemory_policy:${policy}\r\nmem_fragmentation_ratio:1.0\r\n`;

describe('evictionPolicyFromInfo', () => {
  it("reads each Redis policy from INFO memory's maxmemory_policy line", () => {
    for (const policy of EVICTION_POLICIES) expect(evictionPolicyFromInfo(info(policy))).toBe(policy);
    expect(evictionPolicyFromInfo(info('allkeys-lru').replaceAll('\r\n', '\n'))).toBe('allkeys-lru');
  });

  it('is unknown when the answer names no policy, one Redis does not have, or is no text at all', () => {
    expect(evictionPolicyFromInfo('# Memory\r\nused_memory:1024\r\n')).toBe('unknown');
    expect(evictionPolicyFromInfo(info('evict-everything'))).toBe('unknown');
    expect(evictionPolicyFromInfo('maxmemory_policy_other:noeviction\r\n')).toBe('unknown');
    expect(evictionPolicyFromInfo(undefined)).toBe('unknown');
    expect(evictionPolicyFromInfo(42)).toBe('unknown');
  });
});

describe('evictionProblem', () => {
  it('accepts only noeviction on either store, and judges nothing it was not told', () => {
    for (const role of ['main', 'revocation'] as const) {
      expect(evictionProblem(role, 'noeviction')).toBeUndefined();
      expect(evictionProblem(role, 'unknown')).toBeUndefined();
      for (const policy of EVICTION_POLICIES.filter((p) => p !== 'noeviction'))
        expect(evictionProblem(role, policy), `${role} ${policy}`).toBeDefined();
    }
  });

  it('says what eviction costs each store', () => {
    expect(evictionProblem('revocation', 'volatile-lru')).toMatch(/denylist.*accepted again/);
    expect(evictionProblem('main', 'allkeys-lru')).toMatch(/lock.*receipt.*runs twice/);
  });
});
