// The cluster run's self-check: the harness really is a 3-master Redis Cluster, the proxy routes by slot and shows one
// keyspace, and a command or script that crosses slots is caught (the deliberate break every other file relies on).
import { randomUUID } from 'node:crypto';
import { Redis } from '@upstash/redis';
import calculateSlot from 'cluster-key-slot';
import { Redis as IORedis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startRedisRestProxy, type RedisRestProxy } from '../../local/emulators/upstash/index.ts';
import { createKeyspace } from '../../lib/keys/index.ts';

const keys = createKeyspace({ prefix: 'rs', env: 'test' });
let proxy: RedisRestProxy;
let client: Redis;
let nodes: IORedis[];

beforeAll(async () => {
  proxy = await startRedisRestProxy({ redisUrl: inject('redisUrl'), cluster: true });
  client = new Redis({ url: proxy.url, token: proxy.token, automaticDeserialization: false });
  nodes = inject('redisClusterNodes').map((url) => new IORedis(url));
  const ranges = await nodes[0]!.cluster('SLOTS');
  slotOwners = ranges.map(([start, end, master]) => ({ start, end, port: master?.[1] ?? -1 }));
});

afterAll(async () => {
  await proxy?.close();
  for (const node of nodes ?? []) node.disconnect();
});

let slotOwners: Array<{ start: number; end: number; port: number }> = [];

/** Which master (index into `nodes`) serves `key`'s slot, from the cluster's own slot map. */
function ownerOf(key: string): number {
  const slot = calculateSlot(key);
  const port = slotOwners.find((range) => range.start <= slot && slot <= range.end)?.port;
  return nodes.findIndex((node) => node.options.port === port);
}

/** Two organisations whose keys live on different masters, so a script of one cannot even reach the other's. */
function twoOrgsOnDifferentMasters(): [string, string] {
  const first = randomUUID();
  for (;;) {
    const second = randomUUID();
    if (ownerOf(keys.inviteActiveByOrg(first)) !== ownerOf(keys.inviteActiveByOrg(second))) return [first, second];
  }
}

describe('the harness', () => {
  it('is three masters that together serve all 16384 slots', async () => {
    const ranges = await nodes[0]!.cluster('SLOTS');
    const served = ranges.reduce((total, [start, end]) => total + end - start + 1, 0);
    expect(served).toBe(16_384);
    expect(new Set(ranges.map((range) => JSON.stringify(range[2]))).size).toBe(3);
  });

  it("keeps one organisation's keys in one slot and spreads organisations over every master", async () => {
    const org = randomUUID();
    const slots = new Set(
      [keys.inviteObject(org, randomUUID()), keys.inviteActiveByOrg(org), keys.inviteReceiptsByOrg(org)].map((key) => calculateSlot(key)),
    );
    expect(slots.size).toBe(1);
    const owners = new Set<number>();
    for (let index = 0; index < 30; index += 1) {
      const key = keys.inviteActiveByOrg(randomUUID());
      await client.set(key, '1', { ex: 60 });
      owners.add(ownerOf(key));
      expect(await nodes[ownerOf(key)]!.exists(key)).toBe(1);
    }
    expect([...owners].sort()).toEqual([0, 1, 2]);
  });
});

describe('the proxy in front of it', () => {
  it('shows one keyspace: KEYS, SCAN and DBSIZE see every master, and SCRIPT LOAD reaches them all', async () => {
    const tag = `slotting-${randomUUID()}`;
    const written = Array.from({ length: 40 }, (_, index) => `${tag}:${index}`);
    for (const key of written) await client.set(key, 'v', { ex: 60 });
    expect(((await client.keys(`${tag}:*`)) as string[]).sort()).toEqual([...written].sort());
    const scanned: string[] = [];
    let cursor = '0';
    do {
      const [next, batch] = await client.scan(cursor, { match: `${tag}:*`, count: 7 });
      cursor = String(next);
      scanned.push(...batch);
    } while (cursor !== '0');
    expect(scanned.sort()).toEqual([...written].sort());
    // Other files write and delete meanwhile, so the sum is compared within a margin, not exactly.
    const sumOfNodes = async () => (await Promise.all(nodes.map((node) => node.dbsize()))).reduce((sum, size) => sum + size, 0);
    const before = await sumOfNodes();
    const total = await client.dbsize();
    const after = await sumOfNodes();
    expect(total).toBeGreaterThanOrEqual(Math.min(before, after) - 200);
    expect(total).toBeLessThanOrEqual(Math.max(before, after) + 200);
    const sha = await client.scriptLoad(`return redis.call('GET', KEYS[1]) -- ${tag}`);
    // A key on each master: EVALSHA must find the script wherever the key's slot lives.
    const onEach = new Map<number, string>();
    for (const key of written) onEach.set(ownerOf(key), key);
    expect(onEach.size).toBe(3);
    for (const key of onEach.values()) expect(await client.evalsha(sha, [key], [])).toBe('v');
  });

  it('runs a transaction on the master of its slot', async () => {
    const org = randomUUID();
    const [a, b] = [keys.inviteObject(org, randomUUID()), keys.inviteActiveByOrg(org)];
    const replies = await client.multi().set(a, 'x', { ex: 60 }).set(b, 'y', { ex: 60 }).get(a).exec();
    expect(replies).toEqual(['OK', 'OK', 'x']);
  });
});

describe('the deliberate break: crossing slots is caught and named', () => {
  it('a script declaring keys of two organisations, a multi-key command and a transaction across them: CROSSSLOT, recorded', async () => {
    proxy.stats.reset();
    const [first, second] = twoOrgsOnDifferentMasters();
    const [a, b] = [keys.inviteObject(first, randomUUID()), keys.inviteObject(second, randomUUID())];
    await expect(client.eval("return redis.call('EXISTS', KEYS[1], KEYS[2])", [a, b], [])).rejects.toThrow(/CROSSSLOT/);
    await expect(client.mget(a, b)).rejects.toThrow(/CROSSSLOT/);
    await expect(client.multi().set(a, '1', { ex: 60 }).set(b, '1', { ex: 60 }).exec()).rejects.toThrow(/CROSSSLOT/);
    expect(proxy.stats.slotErrors.map((entry) => entry.split(':')[0])).toEqual(['EVAL', 'MGET', 'MULTI']);
    proxy.stats.reset();
  });

  // Redis 7.0 refuses an undeclared key only when another master serves it (a key of another slot on the same master
  // slips through), so scripts declare their keys, and derive keys only under their own tag.
  it('a script that derives a key of an organisation on another master: refused by the cluster, recorded', async () => {
    proxy.stats.reset();
    const [first, second] = twoOrgsOnDifferentMasters();
    const own = keys.inviteActiveByOrg(first);
    const derived = keys.inviteActiveByOrg(second);
    await expect(client.eval("return redis.call('EXISTS', ARGV[1])", [own], [derived])).rejects.toThrow(/slot|non local key/i);
    expect(proxy.stats.slotErrors).toHaveLength(1);
    expect(proxy.stats.slotErrors[0]).toMatch(/^EVAL: /);
    proxy.stats.reset();
  });
});
