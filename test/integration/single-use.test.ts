// The single-use primitive on a real Redis: issued under the token's hash with the kind's TTL, consumed exactly once,
// and a miss the same whether the token was consumed, expired, never issued or malformed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { uuidv7 } from 'uuidv7';
import { sha256Hex } from '../../lib/crypto/index.ts';
import { SINGLE_USE_TTL_SECONDS, type SingleUseKind } from '../../lib/keys/index.ts';
import { RedisUnavailableError } from '../../lib/redis/index.ts';
import { singleUse } from '../../lib/runtime/single-use/index.ts';
import { startStack, type TestStack } from '../support/stack.ts';

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => stack?.close());

const valueSchema = z.strictObject({ userId: z.uuid(), correlationId: z.string() });
const KINDS = Object.keys(SINGLE_USE_TTL_SECONDS) as SingleUseKind[];

describe.each(KINDS)('%s', (kind) => {
  it('is stored under the hash of the token with its exact TTL, and 50 parallel consumes let exactly one through', async () => {
    const value = { userId: uuidv7(), correlationId: 'c-1' };
    const token = await singleUse.issue(stack.deps, kind, valueSchema, value);
    const keys = await stack.redis.keys(`*${await sha256Hex(token)}`);
    expect(keys).toHaveLength(1);
    expect(keys[0]).not.toContain(token);
    expect(await stack.redis.ttl(keys[0]!)).toBe(SINGLE_USE_TTL_SECONDS[kind]);
    expect(await stack.redis.get(keys[0]!)).not.toContain(token);

    const outcomes = await Promise.all(Array.from({ length: 50 }, () => singleUse.consume(stack.deps, kind, valueSchema, token)));
    expect(outcomes.filter((o) => o.ok)).toEqual([{ ok: true, value }]);
    expect(await stack.redis.exists(keys[0]!)).toBe(0);
  });

  it('answers a consumed, an expired, a never-issued and a malformed token alike', async () => {
    const consumed = await singleUse.issue(stack.deps, kind, valueSchema, { userId: uuidv7(), correlationId: 'c' });
    await singleUse.consume(stack.deps, kind, valueSchema, consumed);
    const expired = await singleUse.issue(stack.deps, kind, valueSchema, { userId: uuidv7(), correlationId: 'c' });
    const [expiredKey] = await stack.redis.keys(`*${await sha256Hex(expired)}`);
    await stack.redis.pexpire(expiredKey!, 1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const neverIssued = `${consumed.slice(0, 4)}${'A'.repeat(43)}`;
    const otherKind = KINDS.find((k) => k !== kind)!;
    const ofAnotherKind = await singleUse.issue(stack.deps, otherKind, valueSchema, { userId: uuidv7(), correlationId: 'c' });
    for (const token of [consumed, expired, neverIssued, 'garbage', ofAnotherKind]) {
      expect(await singleUse.consume(stack.deps, kind, valueSchema, token), token.slice(0, 4)).toEqual({ ok: false });
    }
  });

  it('peeks without consuming', async () => {
    const value = { userId: uuidv7(), correlationId: 'peek' };
    const token = await singleUse.issue(stack.deps, kind, valueSchema, value);
    expect(await singleUse.peek(stack.deps, kind, valueSchema, token)).toEqual(value);
    expect(await singleUse.consume(stack.deps, kind, valueSchema, token)).toEqual({ ok: true, value });
    expect(await singleUse.peek(stack.deps, kind, valueSchema, token)).toBeUndefined();
  });
});

describe('failure', () => {
  it('a value that fails its schema is a miss, never a value', async () => {
    const token = await singleUse.issue(stack.deps, 'sso-handoff', valueSchema, { userId: uuidv7(), correlationId: 'c' });
    const [key] = await stack.redis.keys(`*${await sha256Hex(token)}`);
    await stack.redis.set(key!, '{"userId":"not-a-uuid"}', 'EX', 60);
    expect(await singleUse.consume(stack.deps, 'sso-handoff', valueSchema, token)).toEqual({ ok: false });
  });

  it('Redis refused or past its deadline: consume throws (fails closed), never a miss that looks like an answer', async () => {
    const token = await singleUse.issue(stack.deps, 'password-reset', valueSchema, { userId: uuidv7(), correlationId: 'c' });
    for (const fault of [{ refuse: true }, { delayMs: 2_600 }]) {
      stack.redisProxy.faults.set(fault);
      try {
        await expect(singleUse.consume(stack.deps, 'password-reset', valueSchema, token)).rejects.toBeInstanceOf(RedisUnavailableError);
      } finally {
        stack.redisProxy.faults.clear();
      }
    }
  });
});
