// Two keyspaces compared key by key with plain commands: the same keys, types and values, and TTLs within a tolerance.
import { isDeepStrictEqual } from 'node:util';
import type { Redis } from 'ioredis';

interface KeyState {
  type: string;
  pttl: number;
  value: unknown;
}

/** Every key name of database 0, sorted. */
async function keyNames(redis: Redis): Promise<string[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, page] = await redis.scan(cursor, 'COUNT', 1000);
    cursor = next;
    keys.push(...page);
  } while (cursor !== '0');
  return keys.sort();
}

/** One key's type, PTTL and value (hash fields and set members sorted, so order never differs); undefined when missing. */
async function readKey(redis: Redis, key: string): Promise<KeyState | undefined> {
  const type = await redis.type(key);
  if (type === 'none') return undefined;
  const pttl = await redis.pttl(key);
  return { type, pttl, value: await readValue(redis, key, type) };
}

async function readValue(redis: Redis, key: string, type: string): Promise<unknown> {
  switch (type) {
    case 'string':
      return redis.get(key);
    case 'zset':
      return redis.zrange(key, 0, -1, 'WITHSCORES');
    case 'hash':
      return Object.entries(await redis.hgetall(key)).sort(([a], [b]) => a.localeCompare(b));
    case 'set':
      return (await redis.smembers(key)).sort();
    case 'list':
      return redis.lrange(key, 0, -1);
    default:
      return `(${type} not compared)`;
  }
}

/** One line per difference, naming the key; empty when the keyspaces agree. */
export async function keyspaceDifferences(real: Redis, embedded: Redis, ttlToleranceMs = 1_000): Promise<string[]> {
  const names = [...new Set([...(await keyNames(real)), ...(await keyNames(embedded))])].sort();
  const differences: string[] = [];
  for (const key of names) {
    // Both sides read together, so the two PTTLs are a moment apart however large the keyspace grows.
    const [left, right] = await Promise.all([readKey(real, key), readKey(embedded, key)]);
    if (left === undefined || right === undefined) {
      differences.push(`${key}: only on the ${left === undefined ? 'embedded engine' : 'real Redis'}`);
      continue;
    }
    if (left.type !== right.type) differences.push(`${key}: type ${left.type} on the real Redis, ${right.type} on the embedded engine`);
    else if (!isDeepStrictEqual(left.value, right.value)) {
      differences.push(
        `${key} (${left.type}): ${JSON.stringify(left.value)} on the real Redis, ${JSON.stringify(right.value)} on the embedded engine`,
      );
    }
    if (!sameTtl(left.pttl, right.pttl, ttlToleranceMs)) {
      differences.push(`${key}: PTTL ${left.pttl} ms on the real Redis, ${right.pttl} ms on the embedded engine`);
    }
  }
  return differences;
}

function sameTtl(a: number, b: number, toleranceMs: number): boolean {
  // -1 (no TTL) must match exactly; two TTLs agree within the tolerance (the two reads are a moment apart).
  if (a < 0 || b < 0) return a === b;
  return Math.abs(a - b) <= toleranceMs;
}
