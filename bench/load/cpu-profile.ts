// A V8 CPU profile of an instance (node:inspector's Profiler, as `node --cpu-prof` writes it), summed by where the time
// goes: each sample's time lands in the bucket of the function it caught, and a function of no bucket of its own (a
// builtin, a Node internal) takes its caller's, so a `Buffer` copy inside the Redis driver counts as the driver's.
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';

/** The parts of a `Profiler.Profile` this reads. */
interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples?: number[];
}

/** The buckets, in the order the report prints them. */
export const BUCKETS = [
  'JWT verify (jose, lib/auth/verify-token.ts)',
  'zod: stored values, claims, config',
  'zod: request validation',
  'JSON parse/stringify',
  'Hono (routing, middleware, validator)',
  'Redis driver (@upstash/redis)',
  'PostgreSQL driver (@neondatabase/serverless, ws)',
  'HTTP (undici fetch, node:http: the drivers’ calls)',
  'logging (lib/log)',
  'crypto (node:crypto, lib/crypto)',
  'app code (lib, functions)',
  'bench callers (bench/, token minting)',
  'garbage collector',
  'V8 and Node (program)',
  'other',
] as const;
export type Bucket = (typeof BUCKETS)[number];

/**
 * Samples per bucket; idle samples are left out. Counts, not the samples' time deltas: on a machine with more runnable
 * threads than cores a delta also holds the time the thread waited for a core, charged to whichever function it
 * caught. A bucket's share of the samples times the process's CPU is the estimate the report prints.
 */
export type BucketTimes = Partial<Record<Bucket, number>>;

const [JWT, ZOD_STORED, ZOD_REQUEST, JSON_, HONO, REDIS, PG, FETCH, LOG, CRYPTO, APP, BENCH, GC, PROGRAM, OTHER] = BUCKETS;

/** A function's own bucket, or undefined: it takes its caller's. */
function ownBucket(frame: ProfileNode['callFrame'], parent: Bucket | undefined): Bucket | undefined {
  const { url, functionName } = frame;
  if (functionName === '(garbage collector)') return GC;
  if (functionName === '(program)') return PROGRAM;
  if (url === '') return (functionName === 'parse' || functionName === 'stringify') && parent !== JSON_ ? JSON_ : undefined;
  if (url.includes('/node_modules/jose/') || url.endsWith('/lib/auth/verify-token.ts')) return JWT;
  if (url.includes('/node_modules/zod/')) {
    if (parent === ZOD_REQUEST || parent === ZOD_STORED) return parent;
    return parent === HONO ? ZOD_REQUEST : ZOD_STORED;
  }
  if (url.includes('/node_modules/hono/') || url.includes('/node_modules/@hono/')) return HONO;
  if (url.includes('/node_modules/@upstash/redis/')) return REDIS;
  if (url.includes('/node_modules/@neondatabase/') || url.includes('/node_modules/ws/')) return PG;
  // The drivers' HTTP: undici's fetch, or node:http where the Node entries route the stores' calls
  // (functions/entries/store-fetch.ts).
  if (url.startsWith('node:internal/deps/undici') || url.startsWith('node:_http_') || url.endsWith('/functions/entries/store-fetch.ts'))
    return FETCH;
  if (url.startsWith('node:internal/crypto') || url.includes('/lib/crypto/')) return CRYPTO;
  if (url.includes('/lib/log/')) return LOG;
  if (url.includes('/bench/') || url.endsWith('/local/stack/tokens.ts')) return BENCH;
  if (url.includes('/lib/') || url.includes('/functions/')) return APP;
  if (url.startsWith('node:')) return undefined;
  return OTHER;
}

export function sumByBucket(profile: Profile): BucketTimes {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const bucketOf = new Map<number, Bucket>();
  // Nodes are listed parents first in V8's profiles; a walk from the root settles each before its children anyway.
  const root = profile.nodes[0];
  const stack: Array<[ProfileNode, Bucket | undefined]> = root === undefined ? [] : [[root, undefined]];
  while (stack.length > 0) {
    const [node, parent] = stack.pop() as [ProfileNode, Bucket | undefined];
    const bucket = ownBucket(node.callFrame, parent) ?? parent ?? OTHER;
    bucketOf.set(node.id, bucket);
    for (const child of node.children ?? []) {
      const childNode = byId.get(child);
      if (childNode !== undefined) stack.push([childNode, bucket]);
    }
  }
  const counts: BucketTimes = {};
  for (const id of profile.samples ?? []) {
    const node = byId.get(id);
    if (node === undefined || node.callFrame.functionName === '(idle)' || node.callFrame.functionName === '(root)') continue;
    const bucket = bucketOf.get(id) ?? OTHER;
    counts[bucket] = (counts[bucket] ?? 0) + 1;
  }
  return counts;
}

/** Profiles `work` on this thread and answers its samples by bucket; with `saveAs`, the whole profile is written there too. */
export async function profiled<T>(work: () => Promise<T>, saveAs?: string): Promise<{ result: T; buckets: BucketTimes }> {
  const session = new Session();
  session.connect();
  try {
    await session.post('Profiler.enable');
    // 0.5 ms, finer than the 1 ms default: a request costs a few milliseconds.
    await session.post('Profiler.setSamplingInterval', { interval: 500 });
    await session.post('Profiler.start');
    const result = await work();
    const { profile } = await session.post('Profiler.stop');
    if (saveAs !== undefined) await writeFile(saveAs, JSON.stringify(profile));
    return { result, buckets: sumByBucket(profile as Profile) };
  } finally {
    session.disconnect();
  }
}
