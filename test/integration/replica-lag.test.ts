// The REST proxy's lagging replica: reads without a sync token can be stale, a client's reads after its own writes are
// not, scripts and writes go to the primary, and lib/redis's four clients of one store share one token.
import { randomUUID } from 'node:crypto';
import { Redis } from '@upstash/redis/cloudflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { startRedisRestProxy, type RedisRestProxy } from '../../local/emulators/upstash/index.ts';
import { createRedisStore } from '../../lib/redis/index.ts';

// Within the check client's 800 ms deadline (lib/redis/store.ts), which a read-your-writes read spends waiting.
const LAG_MS = 150;

let proxy: RedisRestProxy;
beforeAll(async () => {
  proxy = await startRedisRestProxy({ redisUrl: inject('redisUrl'), replicaLagMs: LAG_MS });
});
afterAll(async () => proxy?.close());

function client(readYourWrites: boolean): Redis {
  return new Redis({ url: proxy.url, token: proxy.token, automaticDeserialization: false, enableTelemetry: false, readYourWrites });
}

const key = () => `test:replica-lag:${randomUUID()}`;

/** Runs `whileHeld` with the replica cut off from the primary, so whatever it writes is certainly not there yet. */
async function withReplicaHeld(whileHeld: () => Promise<void>): Promise<void> {
  const replica = proxy.replica;
  if (replica === undefined) throw new Error('the proxy has no replica');
  replica.hold();
  try {
    await whileHeld();
  } finally {
    replica.release();
  }
}

describe('a replica that lags the primary', () => {
  it('serves a read without a sync token from before the write, and the writer its own write', async () => {
    const writer = client(true);
    const stranger = client(false);
    const k = key();
    const readsBefore = proxy.stats.replicaReads;
    await withReplicaHeld(async () => {
      await writer.set(k, 'v1', { ex: 60 });
      // Another client (another isolate, another region's function) reads through the replica: not there yet.
      expect(await stranger.get(k)).toBeNull();
    });
    expect(proxy.stats.replicaReads).toBe(readsBefore + 1);
    // The writer's token makes the replica catch up before it answers, and the replica answers it.
    expect(writer.readYourWritesSyncToken).toMatch(/^\d+$/);
    expect(await writer.get(k)).toBe('v1');
    expect(proxy.stats.replicaReads).toBe(readsBefore + 2);
    // An overwrite: the stranger sees the old value, the writer the new one.
    await withReplicaHeld(async () => {
      await writer.set(k, 'v2', { ex: 60 });
      expect(await stranger.get(k)).toBe('v1');
    });
    expect(await writer.get(k)).toBe('v2');
  });

  it('sends writes, scripts and a pipeline holding a write to the primary', async () => {
    const writer = client(true);
    const stranger = client(false);
    const k = key();
    await withReplicaHeld(async () => {
      await writer.set(k, 'fresh', { ex: 60 });
      const readsBefore = proxy.stats.replicaReads;
      expect(await stranger.eval('return redis.call("GET", KEYS[1])', [k], [])).toBe('fresh');
      const replies = await stranger.pipeline().incr(`${k}:n`).expire(`${k}:n`, 60).get(k).exec();
      expect(replies).toEqual([1, 1, 'fresh']);
      expect(await stranger.multi().get(k).exec()).toEqual(['fresh']);
      expect(proxy.stats.replicaReads).toBe(readsBefore);
    });
  });

  it('orders reads after writes across the four call kinds of one lib/redis store', async () => {
    const store = createRedisStore({ url: proxy.url, token: proxy.token });
    const other = createRedisStore({ url: proxy.url, token: proxy.token });
    const k = key();
    await withReplicaHeld(async () => {
      await store.atMostOnce.set(k, 'revoked', { ex: 60 });
      // Another instance of the app (its own clients, no token) misses it: why the denylist's store has no read regions.
      expect(await other.check.get(k)).toBeNull();
    });
    // This instance's other clients carry the write's token.
    expect(await store.check.get(k)).toBe('revoked');
    expect(await store.retrySafe.get(k)).toBe('revoked');
    const pipeline = store.check.pipeline();
    pipeline.exists(k);
    expect(await pipeline.exec()).toEqual([1]);
  });
});
