// A Redis keyspace (database 0) as a file and back, TTLs kept as absolute expiry times: the embedded engine's persistence.
import { chmod, readFile, rename, writeFile } from 'node:fs/promises';
import type { Redis } from 'ioredis';
import * as z from 'zod';

const FORMAT = 'runstate-redis-snapshot';

/**
 * One script, so the snapshot is one atomic view (no script of the app runs half inside it): every key of database 0
 * with its type, PTTL and value. Types runstate never writes (streams) come back without a value and are skipped.
 */
const READ_KEYSPACE = `
local out = {}
local cursor = '0'
repeat
  local page = redis.call('SCAN', cursor, 'COUNT', 1000)
  cursor = page[1]
  for _, key in ipairs(page[2]) do
    local kind = redis.call('TYPE', key)['ok']
    local ttl = redis.call('PTTL', key)
    local value = false
    if kind == 'string' then value = redis.call('GET', key)
    elseif kind == 'zset' then value = redis.call('ZRANGE', key, 0, -1, 'WITHSCORES')
    elseif kind == 'hash' then value = redis.call('HGETALL', key)
    elseif kind == 'list' then value = redis.call('LRANGE', key, 0, -1)
    elseif kind == 'set' then value = redis.call('SMEMBERS', key)
    end
    out[#out + 1] = {key, kind, ttl, value}
  end
until cursor == '0'
return out
`;

const SAVED_TYPES = ['string', 'zset', 'hash', 'list', 'set'] as const;

const entrySchema = z.object({
  /** base64, so binary keys and values survive. */
  key: z.string(),
  type: z.enum(SAVED_TYPES),
  /** Absolute expiry in ms since the epoch; null for a key without a TTL. */
  expiresAtMs: z.number().int().positive().nullable(),
  /** A string's bytes, or the flat reply of the type's read (zset: member, score, member, score …), each base64. */
  value: z.union([z.string(), z.array(z.string())]),
});

const snapshotSchema = z.object({
  format: z.literal(FORMAT),
  version: z.literal(1),
  savedAtMs: z.number().int().positive(),
  keys: z.array(entrySchema),
});

type SnapshotEntry = z.infer<typeof entrySchema>;

export interface SnapshotResult {
  keys: number;
  /** Keys of a type the snapshot does not keep (streams). */
  skipped: number;
}

/** Reads the whole keyspace in one script and writes it whole to `file` (0600 from creation, then renamed over the old one). */
export async function saveSnapshot(redis: Redis, file: string, now: () => number = Date.now): Promise<SnapshotResult> {
  const savedAtMs = now();
  const reply = (await redis.callBuffer('EVAL', READ_KEYSPACE, '0')) as Array<[Buffer, Buffer, number, Buffer | Buffer[] | null]>;
  const keys: SnapshotEntry[] = [];
  let skipped = 0;
  for (const [key, kind, ttl, value] of reply) {
    const type = kind.toString();
    if (!isSavedType(type) || value === null) {
      skipped += 1;
      continue;
    }
    // PTTL -2: gone between SCAN and the read (cannot happen inside one script, but costs nothing to honour).
    if (ttl === -2) continue;
    keys.push({
      key: key.toString('base64'),
      type,
      expiresAtMs: ttl === -1 ? null : savedAtMs + ttl,
      value: Array.isArray(value) ? value.map((part) => part.toString('base64')) : value.toString('base64'),
    });
  }
  const text = JSON.stringify({ format: FORMAT, version: 1, savedAtMs, keys } satisfies z.infer<typeof snapshotSchema>);
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, text, { mode: 0o600 });
  // The umask may have narrowed the mode; never wider.
  await chmod(temporary, 0o600);
  await rename(temporary, file);
  return { keys: keys.length, skipped };
}

/**
 * Writes a snapshot back into an empty keyspace; keys whose expiry passed while the server was down are left out,
 * as Redis does when it loads an RDB file.
 */
export async function restoreSnapshot(redis: Redis, file: string, now: () => number = Date.now): Promise<SnapshotResult> {
  const parsed = snapshotSchema.safeParse(JSON.parse(await readFile(file, 'utf8')));
  if (!parsed.success) throw new Error(`${file} is not a Redis snapshot this launcher wrote: ${parsed.error.issues[0]?.message ?? ''}`);
  if ((await redis.dbsize()) !== 0) throw new Error('a snapshot is restored into an empty keyspace only');
  const at = now();
  const pipeline = redis.pipeline();
  let restored = 0;
  let expired = 0;
  for (const entry of parsed.data.keys) {
    if (entry.expiresAtMs !== null && entry.expiresAtMs <= at) {
      expired += 1;
      continue;
    }
    const key = Buffer.from(entry.key, 'base64');
    const parts = typeof entry.value === 'string' ? [Buffer.from(entry.value, 'base64')] : entry.value.map((v) => Buffer.from(v, 'base64'));
    pipeline.call(...writeCommand(entry.type, key, parts));
    if (entry.expiresAtMs !== null) pipeline.pexpireat(key, entry.expiresAtMs);
    restored += 1;
  }
  const results = (await pipeline.exec()) ?? [];
  const failed = results.find(([error]) => error !== null);
  if (failed !== undefined) throw new Error(`restoring ${file} failed: ${(failed[0] as Error).message}`);
  return { keys: restored, skipped: expired };
}

function writeCommand(type: SnapshotEntry['type'], key: Buffer, parts: Buffer[]): [string, ...Array<Buffer>] {
  switch (type) {
    case 'string':
      return ['SET', key, parts[0] ?? Buffer.alloc(0)];
    case 'zset': {
      // WITHSCORES gives member, score; ZADD wants score, member.
      const pairs: Buffer[] = [];
      for (let i = 0; i + 1 < parts.length; i += 2) pairs.push(parts[i + 1] as Buffer, parts[i] as Buffer);
      return ['ZADD', key, ...pairs];
    }
    case 'hash':
      return ['HSET', key, ...parts];
    case 'list':
      return ['RPUSH', key, ...parts];
    case 'set':
      return ['SADD', key, ...parts];
  }
}

function isSavedType(type: string): type is SnapshotEntry['type'] {
  return (SAVED_TYPES as readonly string[]).includes(type);
}
