// Redis memory after the load, by key row of the registry (lib/keys): `MEMORY USAGE` of every key under the run's
// prefix, summed per registry entry, straight on Redis (outside the proxies, after the counts were read).
import type { Redis as IORedis } from 'ioredis';
import { findRegistryEntry } from '../../lib/keys/index.ts';

export interface KeyRowMemory {
  /** The registry entry's name (its builder in lib/keys), or `unregistered`. */
  row: string;
  keys: number;
  bytes: number;
}

const SCAN_COUNT = 1_000;

export async function memoryByKeyRow(redis: IORedis, keyPrefix: string): Promise<KeyRowMemory[]> {
  const rows = new Map<string, KeyRowMemory>();
  // SCAN may return a key twice (a rehash between calls): each is measured once.
  const seen = new Set<string>();
  let cursor = '0';
  do {
    const [next, found] = await redis.scan(cursor, 'MATCH', `${keyPrefix}:*`, 'COUNT', SCAN_COUNT);
    cursor = next;
    const keys = found.filter((key) => !seen.has(key));
    for (const key of keys) seen.add(key);
    if (keys.length === 0) continue;
    const pipeline = redis.pipeline();
    // SAMPLES 0: every element of a set or hash is counted, not an estimate from five.
    for (const key of keys) pipeline.call('MEMORY', 'USAGE', key, 'SAMPLES', '0');
    const replies = (await pipeline.exec()) ?? [];
    keys.forEach((key, i) => {
      const [error, bytes] = replies[i] ?? [null, null];
      // A key that expired between SCAN and MEMORY USAGE answers nil: it holds nothing any more.
      if (error !== null || typeof bytes !== 'number') return;
      const row = findRegistryEntry(key)?.name ?? 'unregistered';
      const entry = rows.get(row) ?? { row, keys: 0, bytes: 0 };
      entry.keys += 1;
      entry.bytes += bytes;
      rows.set(row, entry);
    });
  } while (cursor !== '0');
  return [...rows.values()].sort((a, b) => b.bytes - a.bytes);
}
