// The job cache: a running job's progress in Redis, never the truth (the jobs row in PostgreSQL is).
import * as z from 'zod';
import { defineKey } from '../define-key.ts';
import { uuid } from '../id-segments.ts';
import { json } from '../key-values.ts';
import { anyScope } from '../scopes.ts';

/** A running job's cached progress lives this long after its last heartbeat; a job silent for twice as long is stalled
 * and the next scheduled run resumes it. Only APP_ENV=test may shorten it (lib/config/load.ts). */
export const JOB_CACHE_TTL_SECONDS = 120;

export const JOB_KINDS = ['audit-export'] as const;

/** What the cache holds: the job's non-sensitive status, progress and last heartbeat (nothing the file contains). */
export const jobCacheSchema = z.lazy(() =>
  z.strictObject({
    jobId: z.uuid(),
    organizationId: z.uuid(),
    kind: z.enum(JOB_KINDS),
    state: z.literal('running'),
    progressPercent: z.number().int().min(0).max(100),
    rowsDone: z.number().int().min(0),
    rowsTotal: z.number().int().min(0),
    truncated: z.boolean(),
    heartbeatAtUtc: z.string(),
    requestedByUserId: z.uuid(),
    correlationId: z.string().max(128),
    createdAtUtc: z.string(),
  }),
);

export const jobKeys = {
  jobCache: defineKey({
    scope: anyScope(),
    domain: 'job',
    purpose: 'cache',
    id: [uuid('jobId')],
    ttl: { seconds: JOB_CACHE_TTL_SECONDS },
    value: json(jobCacheSchema),
  }),
};
