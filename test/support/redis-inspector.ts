// The tests' direct line to Redis, past the proxy, to check what the app really left behind. On the cluster run it is a
// cluster client whose keyless commands (KEYS, SCAN, DBSIZE, FLUSHALL, SCRIPT) see every master, as a lone Redis would.
import { Cluster, Redis } from 'ioredis';

export async function openRedisInspector(redisUrl: string, cluster: boolean): Promise<Redis> {
  if (!cluster) {
    const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
    // Fault tests stop the server under this inspector; its reconnect errors are expected, not news.
    redis.on('error', () => undefined);
    await redis.connect();
    return redis;
  }
  const seed = new URL(redisUrl);
  const client = new Cluster([{ host: seed.hostname, port: Number(seed.port) }], { lazyConnect: true, scaleReads: 'master' });
  client.on('error', () => undefined);
  await client.connect();
  return acrossMasters(client);
}

/** The cluster client, with the keyless commands the tests use answered from every master. */
function acrossMasters(client: Cluster): Redis {
  const masters = (): Redis[] => client.nodes('master');
  const each = <T>(run: (node: Redis) => Promise<T>): Promise<T[]> => Promise.all(masters().map(run));
  const overrides: Record<string, unknown> = {
    keys: async (pattern: string) => (await each((node) => node.keys(pattern))).flat(),
    dbsize: async () => (await each((node) => node.dbsize())).reduce((sum, size) => sum + size, 0),
    flushall: async () => (await each((node) => node.flushall()))[0],
    flushdb: async () => (await each((node) => node.flushdb()))[0],
    script: async (...args: [string, ...string[]]) => (await each((node) => node.call('SCRIPT', ...args)))[0],
    // Every matching key in one answer: cursor 0 back at once (the tests loop until it is 0).
    scan: async (_cursor: string, ...options: string[]) => {
      const found = await each(async (node) => {
        const keys: string[] = [];
        let cursor = '0';
        do {
          const [next, batch] = (await node.call('SCAN', cursor, ...options)) as [string, string[]];
          cursor = next;
          keys.push(...batch);
        } while (cursor !== '0');
        return keys;
      });
      return ['0', found.flat()];
    },
  };
  return new Proxy(client, {
    get: (target, property, receiver) =>
      typeof property === 'string' && property in overrides ? overrides[property] : Reflect.get(target, property, receiver),
  }) as unknown as Redis;
}
