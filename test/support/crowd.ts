// The Redis deadline of app instances that serve a crowd of concurrent calls in one test process.

/**
 * Far above any production deadline (lib/redis/store.ts), far below a test's 30 s: a crowd test judges an exact outcome
 * (one login, exactly the limit admitted, one winner), and on a machine busy with other suites a call can wait past a
 * production deadline for CPU alone, which would send it down the failure path instead (a fail-open count, a 503). The
 * deadlines themselves are tested with faults that hold Redis (invites-faults.test.ts), not by a starved CPU.
 */
export const CROWD_REDIS_TIMEOUT_MS = 10_000;
