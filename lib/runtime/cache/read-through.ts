// cache.readThrough: an org cache entry from Redis when it is there, else from its source of truth, which then fills it.
// Fails open: when Redis cannot answer, the source's answer is returned (one WARN, naming the cache, never the key).
import type * as z from 'zod';
import type { Deps } from '../../deps.ts';
import { errorKind } from '../../log/logger.ts';
import { decodeJson, encodeJson, redisCall, rethrowDefect } from '../../redis/index.ts';
import { entryKey, type OrgCacheEntry } from './entries.ts';
import { readOrgCacheEntry, type CachedEntry } from './read-entry.ts';

export interface ReadThrough<S extends z.ZodType> {
  /** Names the cache in a WARN (`org-settings`); the key never appears in a log. */
  name: string;
  entry: OrgCacheEntry;
  /** Checks the value on the way in (from the source, before it is cached) and on the way out (from Redis). */
  schema: S;
  ttlSeconds: number;
  /** The source of truth (PostgreSQL); undefined means "nothing there" and is not cached. */
  source(): Promise<z.input<S> | undefined>;
  /**
   * Awaited before anything read is used and before the source is asked: the caller's authorisation, which runs beside
   * the Redis read (docs/design/revocation.md#reads-beside-the-revocation-check). A refusal rejects the read with it.
   */
  gate?: Promise<unknown>;
  correlationId: string;
}

export interface ReadThroughResult<T> {
  value: T | undefined;
  /** Where the value came from: a cache hit costs one Redis round trip and nothing else. */
  from: 'cache' | 'source';
}

/**
 * Hit: one round trip (the generation and the entry in one script). Miss: the source, then one `SET … EX` under the
 * generation the read found, so a bump in between leaves the write unreachable instead of stale. A value that fails
 * its schema is a miss. When the read fails, the source answers and nothing is written (Redis just failed; one WARN
 * per request); a failed write is a WARN and the source's answer still stands: a restriction is never dropped.
 */
export async function readThrough<S extends z.ZodType>(deps: Deps, spec: ReadThrough<S>): Promise<ReadThroughResult<z.output<S>>> {
  const pending: Promise<CachedEntry | { failed: unknown }> = readOrgCacheEntry(deps, spec.entry).catch((error: unknown) => ({
    failed: error,
  }));
  if (spec.gate !== undefined) await spec.gate;
  const cached = await pending;
  if ('failed' in cached) {
    // A defect of ours (a WRONGTYPE at the entry) is a 500, not a store that is away (lib/redis/reply-class.ts).
    rethrowDefect(cached.failed);
    warn(deps, spec, 'read', cached.failed);
    return { value: await fromSource(spec), from: 'source' };
  }
  const hit = decodeJson(spec.schema, cached.raw);
  if (hit !== undefined) return { value: hit, from: 'cache' };
  const value = await fromSource(spec);
  if (value !== undefined && cached.generation !== undefined) {
    const key = entryKey(deps.keys, spec.entry, cached.generation);
    // The schemas of this cache have no transforms: what came out of one parse goes into the next as is.
    const encoded = encodeJson(spec.schema, value as z.input<S>);
    // atMostOnce: a retried SET landing late could put back what an invalidation has just made unreachable.
    await redisCall(`cache.${spec.name}.write`, () => deps.redis.atMostOnce.set(key, encoded, { ex: spec.ttlSeconds })).catch(
      (error: unknown) => warn(deps, spec, 'write', error),
    );
  }
  return { value, from: 'source' };
}

async function fromSource<S extends z.ZodType>(spec: ReadThrough<S>): Promise<z.output<S> | undefined> {
  const value = await spec.source();
  // Whitelisted on the way in too: a strict schema refuses a field the source should never have handed over.
  return value === undefined ? undefined : spec.schema.parse(value);
}

function warn(deps: Deps, spec: { name: string; correlationId: string }, operation: string, error: unknown): void {
  deps.logger.warn('cache_unavailable', { cache: spec.name, operation, errorKind: errorKind(error), correlationId: spec.correlationId });
}
