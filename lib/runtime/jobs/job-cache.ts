// The job cache (registry row jobCache): a running job's progress in Redis, one command per change, never the truth.
import type * as z from 'zod';
import type { Deps } from '../../deps.ts';
import { jobCacheSchema } from '../../keys/index.ts';
import { errorKind } from '../../log/logger.ts';
import { decodeJson, encodeJson, redisCall } from '../../redis/index.ts';
import type { Job } from './job-record.ts';

type JobCacheEntry = z.infer<typeof jobCacheSchema>;

const cacheKey = (deps: Deps, job: { organizationId: string; jobId: string }) =>
  deps.keys.jobCache({ kind: 'org', id: job.organizationId }, job.jobId);

// A cache that cannot answer never fails the job or the request: the jobs row is the truth. The WARN names the job
// and the operation, never the key.
function warn(deps: Deps, operation: string, jobId: string, error: unknown): void {
  deps.logger.warn('job_cache_unavailable', { operation, jobId, errorKind: errorKind(error) });
}

/**
 * The heartbeat: `SET … EX ttl`, so every heartbeat sets the TTL again. On the atMostOnce client: without retries, a
 * heartbeat cannot land late, after the DEL that finished the job, and bring a finished job's progress back.
 */
export async function writeJobCache(deps: Deps, job: Job & { heartbeatAtUtc: string }): Promise<boolean> {
  const entry: JobCacheEntry = {
    jobId: job.jobId,
    organizationId: job.organizationId,
    kind: job.kind,
    state: 'running',
    progressPercent: job.progressPercent,
    rowsDone: job.rowsDone,
    rowsTotal: job.rowsTotal,
    truncated: job.truncated,
    heartbeatAtUtc: job.heartbeatAtUtc,
    requestedByUserId: job.requestedByUserId,
    correlationId: job.correlationId,
    createdAtUtc: job.createdAtUtc,
  };
  try {
    const value = encodeJson(jobCacheSchema, entry);
    await redisCall('jobs.cache.write', () =>
      deps.redis.atMostOnce.set(cacheKey(deps, job), value, { ex: deps.config.jobCacheTtlSeconds }),
    );
    return true;
  } catch (error) {
    warn(deps, 'write', job.jobId, error);
    return false;
  }
}

/** On completion, failure and cancellation: `DEL` of the cache only (idempotent, so retried); the row stays. */
export async function deleteJobCache(deps: Deps, job: { organizationId: string; jobId: string }): Promise<boolean> {
  try {
    await redisCall('jobs.cache.delete', () => deps.redis.retrySafe.del(cacheKey(deps, job)));
    return true;
  } catch (error) {
    warn(deps, 'delete', job.jobId, error);
    return false;
  }
}

/**
 * The cached job, or undefined when there is none, it fails its schema or names another job or organisation, or
 * Redis cannot answer: the caller then reads the row. A cached job is never stalled: the cache outlives a heartbeat
 * by one TTL, and a job is stalled only after two.
 */
export async function readJobCache(deps: Deps, ref: { organizationId: string; jobId: string }): Promise<Job | undefined> {
  let raw: unknown;
  try {
    raw = await redisCall('jobs.cache.read', () => deps.redis.retrySafe.get(cacheKey(deps, ref)));
  } catch (error) {
    warn(deps, 'read', ref.jobId, error);
    return undefined;
  }
  const entry = decodeJson(jobCacheSchema, raw);
  if (entry === undefined || entry.jobId !== ref.jobId || entry.organizationId !== ref.organizationId) return undefined;
  return { ...entry, stalled: false, finishedAtUtc: null, fileBytes: null, expectedStartBy: null, source: 'cache' };
}
