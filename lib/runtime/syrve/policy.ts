// The numbers of the Syrve runtime session: attempts, lock, deadlines and waits, in one place (docs/design/syrve.md#syrveiiko-runtime-sessions).
import { SYRVE_REFRESH_LOCK_TTL_SECONDS } from '../../keys/index.ts';

/** One request tries the upstream call at most this often, and this many consecutive failures open the circuit. */
export const MAX_RECONNECT_ATTEMPTS = 7;

/** The circuit is open (calls fail fast, no upstream request) once the counter holds that many consecutive failures. */
export function isCircuitOpen(failures: number): boolean {
  return failures >= MAX_RECONNECT_ATTEMPTS;
}

/** The refresh lock's TTL, declared with its key (lib/keys/defs/syrve.ts). */
export const LOCK_TTL_MS = SYRVE_REFRESH_LOCK_TTL_SECONDS * 1000;

/** A login's deadline: well inside the lock, so the holder still owns it when it stores the session. */
export const LOGIN_TIMEOUT_MS = 5_000;

/** Deadline of one upstream call with a session. */
export const CALL_TIMEOUT_MS = 5_000;

/** A waiter gives up this long after the lock's TTL: a holder that died has left a lock that expired by then. */
export const WAIT_MARGIN_MS = 2_000;

/** Waiters re-read every 50–150 ms: jitter keeps a crowd of waiters from polling in step. */
export const POLL_MIN_MS = 50;
export const POLL_JITTER_MS = 100;

/**
 * One request's time for the session work (waits, logins, calls, retries): no attempt starts that could not finish
 * inside it, so even a server that answers every call with a slow 403 cannot hold a request past the platform's
 * limit (Lambda: 29 s in sst.config.ts; docs/design/postgres.md#postgresql-deadlines).
 */
export const REQUEST_BUDGET_MS = 20_000;
