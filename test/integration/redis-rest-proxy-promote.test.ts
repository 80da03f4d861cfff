// The REST proxy's failover in place: promote() turns a replica of its Redis into the primary and moves onto it on the
// same address; a command in flight on the old primary fails (503), one arriving during the switch waits for the new.
import { Redis as Upstash } from '@upstash/redis';
import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startRedisRestProxy, type RedisRestProxy } from '../../local/emulators/upstash/index.ts';
import { startLaggingLink } from '../../local/emulators/upstash/replica/lagging-link.ts';
import { freePort } from '../../local/processes/free-port.ts';
import { startRedisServer, type RedisServerHandle } from '../../local/processes/redis-server.ts';

let primary: RedisServerHandle;
let replica: RedisServerHandle;
let onPrimary: Redis;
let onReplica: Redis;
let proxy: RedisRestProxy;
const closers: Array<() => Promise<unknown>> = [];

/**
 * Keeps the old primary busy for a second, then writes its key: a command still in flight there when the switch comes,
 * whose reply would arrive after it.
 */
const BUSY_SCRIPT = `local t = redis.call('TIME')
local start = t[1] * 1000000 + t[2]
repeat t = redis.call('TIME') until t[1] * 1000000 + t[2] - start > 1000000
return redis.call('SET', KEYS[1], 'late')`;

async function connect(url: string): Promise<Redis> {
  const connection = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0 });
  await connection.connect();
  closers.push(async () => connection.disconnect());
  return connection;
}

beforeEach(async () => {
  primary = await startRedisServer();
  replica = await startRedisServer();
  closers.push(
    () => primary.stop(),
    () => replica.stop(),
  );
  onPrimary = await connect(primary.url);
  onReplica = await connect(replica.url);
  await onReplica.replicaof('127.0.0.1', primary.port);
  await waitFor(async () => /^master_link_status:up/m.test(await onReplica.info('replication')), 10_000, 'the replica did not sync');
  proxy = await startRedisRestProxy({ redisUrl: primary.url });
  closers.push(() => proxy.close());
});

afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => undefined);
});

async function post(path: '' | '/multi-exec', body: unknown): Promise<{ status: number; json: unknown }> {
  const response = await fetch(`${proxy.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${proxy.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as unknown };
}

async function waitFor(condition: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) expect.fail(`${what} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('promote()', () => {
  it('moves the proxy onto the replica in place: the same client on the same address reads and writes the promoted replica, which follows the old primary no more', async () => {
    const client = new Upstash({ url: proxy.url, token: proxy.token, automaticDeserialization: false });
    await client.set('shared', 'before');
    await waitFor(async () => (await onReplica.get('shared')) === 'before', 5_000, 'the replica did not get the write');

    await proxy.promote(replica.url);

    expect(await onReplica.info('replication')).toMatch(/^role:master/m);
    // The old primary moves on alone; the proxy does not see it.
    await onPrimary.set('shared', 'old primary, after the switch');
    expect(await client.get('shared')).toBe('before');
    await client.set('written', 'after');
    expect(await onReplica.get('written')).toBe('after');
    expect(await onPrimary.get('written')).toBeNull();
    // Transactions run on pooled connections of their own: those moved too.
    expect(
      await post('/multi-exec', [
        ['incr', 'counter'],
        ['get', 'shared'],
      ]),
    ).toEqual({
      status: 200,
      json: [{ result: 1 }, { result: 'before' }],
    });
    expect(await onReplica.get('counter')).toBe('1');
    expect(await onPrimary.exists('counter')).toBe(0);
  });

  it('fails a command in flight on the old primary (503: its outcome is unknown), and never answers it from there afterwards', async () => {
    // Pooled connection for the transaction opened first, so both commands are sent at once.
    expect((await post('/multi-exec', [['ping']])).status).toBe(200);
    const before = proxy.stats.commands;
    const single = post('', ['eval', BUSY_SCRIPT, 1, 'in-flight']);
    const transaction = post('/multi-exec', [['set', 'in-flight-tx', 'multi']]);
    await waitFor(async () => proxy.stats.commands >= before + 2, 5_000, 'the commands did not reach the proxy');

    await proxy.promote(replica.url);

    for (const answer of [await single, await transaction]) {
      expect(answer.status).toBe(503);
      expect(answer.json).toEqual({ error: expect.any(String) as unknown });
    }
    // The old primary did run them: the caller was told the outcome is unknown, not that they failed.
    await waitFor(async () => (await onPrimary.exists('in-flight', 'in-flight-tx')) === 2, 5_000, 'the old primary did not run them');
    expect(await post('', ['set', 'next', '1'])).toEqual({ status: 200, json: { result: 'OK' } });
    expect(await onReplica.get('next')).toBe('1');
    expect(await onPrimary.exists('next')).toBe(0);
  });

  it('holds a request that arrives during the switch and answers it from the new primary', async () => {
    // The replica reached through a held link: the switch stays under way until the test lets it finish.
    const replicaLink = await startLaggingLink({ host: '127.0.0.1', port: replica.port }, 0);
    closers.push(() => replicaLink.close());
    replicaLink.hold();
    const promoting = proxy.promote(`redis://127.0.0.1:${replicaLink.port}`);
    const before = proxy.stats.requests;
    const during = post('', ['set', 'during', 'switch']);
    await waitFor(async () => proxy.stats.requests > before, 5_000, 'the request did not reach the proxy');
    replicaLink.release();

    await promoting;
    expect(await during).toEqual({ status: 200, json: { result: 'OK' } });
    expect(await onReplica.get('during')).toBe('switch');
    expect(await onPrimary.exists('during')).toBe(0);
  });

  it('leaves the proxy on its primary when the replica cannot be reached', async () => {
    const nowhere = `redis://127.0.0.1:${await freePort()}`;
    await expect(proxy.promote(nowhere)).rejects.toThrow(/could not connect/);
    expect(await post('', ['set', 'still', 'primary'])).toEqual({ status: 200, json: { result: 'OK' } });
    expect(await onPrimary.get('still')).toBe('primary');
    expect(await onReplica.info('replication')).toMatch(/^role:slave/m);
  });

  it('is refused in front of a lagging replica, whose reads would still follow the old primary', async () => {
    const lagging = await startRedisRestProxy({ redisUrl: primary.url, replicaLagMs: 50 });
    closers.push(() => lagging.close());
    await expect(lagging.promote(replica.url)).rejects.toThrow(/without a lagging replica/);
    expect(await onReplica.info('replication')).toMatch(/^role:slave/m);
  });
});
