// Every Lua script compiles on the real Redis and its precomputed SHA is the one Redis assigns (EVALSHA hits, no silent EVAL).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { inject } from 'vitest';
import { Redis as IORedis } from 'ioredis';
import { LIB_SCRIPTS } from '../support/lib-scripts.ts';
import { scriptSha } from '../../lib/redis/index.ts';

let redis: IORedis;
beforeAll(() => {
  redis = new IORedis(inject('redisUrl'));
});
afterAll(async () => {
  await redis.quit();
});

it.each(LIB_SCRIPTS.map((s) => [s.name, s] as const))('%s: SCRIPT LOAD returns our SHA', async (_name, script) => {
  const loaded = (await redis.call('SCRIPT', 'LOAD', script.source)) as string;
  expect(loaded).toBe(await scriptSha(script));
});
