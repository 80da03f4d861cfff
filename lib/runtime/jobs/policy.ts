// The audit export's limits, as one table: rows per file, rows per batch, unfinished exports per organisation, stalls.
import type { Config } from '../../config/index.ts';

export const AUDIT_EXPORT = {
  /** One file holds at most this many events: the newest ones before the request, oldest first (docs/api.md). */
  maxRows: 100_000,
  /** Events per batch: one read, one part, one transaction. Far inside the Neon HTTP answer limit even for the
   * largest rows audit details allow (20 values of 256 characters). */
  batchRows: 500,
  /** Unfinished (queued or running) exports one organisation may have at once; more is 409. */
  maxUnfinishedPerOrg: 3,
  /** Bytes of the file read per query when it is downloaded. */
  downloadPageBytes: 4 * 1024 * 1024,
} as const;

/**
 * A running job with no heartbeat for this long is stalled, and a run's claim on it lapses: twice the cache TTL, or one
 * schedule interval and a TTL when the schedule is longer (the deployments' 5 minutes). A job handed back by its run's
 * budget waits for the next scheduled run, which comes within one interval (the tasks before this one take seconds,
 * well inside a TTL), so it never shows as stalled meanwhile; one whose cache expired without a heartbeat has had a
 * whole TTL more before it shows as stalled and is taken over (docs/design/jobs.md#background-jobs-the-audit-export, "TTL, stalls, resume").
 */
export function stallSeconds(config: Pick<Config, 'jobCacheTtlSeconds' | 'cron'>): number {
  return Math.max(2 * config.jobCacheTtlSeconds, config.cron.intervalSeconds + config.jobCacheTtlSeconds);
}
