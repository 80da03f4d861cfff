// syrveSession.call: runs one upstream call with the connection's shared runtime session — a hit is one Redis round trip.
import type { CallResult } from '../../upstream/syrve/index.ts';
import { redisCall } from '../../redis/index.ts';
import type { Deps } from '../../deps.ts';
import { acquireSession, readSession, type ActiveSession } from './acquire-session.ts';
import type { SyrveConnection } from './connection.ts';
import { countReconnectFailure } from './reconnect-failures.ts';
import { CALL_TIMEOUT_MS, LOGIN_TIMEOUT_MS, MAX_RECONNECT_ATTEMPTS, REQUEST_BUDGET_MS, isCircuitOpen } from './policy.ts';

export type SessionCallOutcome<T> =
  | { ok: true; value: T; session: 'cached' | 'acquired' }
  | { ok: false; reason: 'circuit-open' }
  | { ok: false; reason: 'reconnect-exhausted'; attempts: number }
  | { ok: false; reason: 'login-refused'; status: number }
  | { ok: false; reason: 'upstream-failed'; status?: number }
  | { ok: false; reason: 'lock-timeout' }
  | { ok: false; reason: 'credentials-changed' };

/**
 * Runs `call` with a session: the cached one, else one acquired under the refresh lock. A 403 drops the session only
 * if it is still the one that failed, counts a reconnect failure and tries again, at most 7 calls in one request; at
 * 7 consecutive failures the connection's circuit is open and calls fail fast with no upstream request until the
 * cooldown passes, or a rotation or re-enable resets it. Redis failures throw (503): without the shared lock, logins
 * would multiply, so none is attempted.
 */
export async function callWithSession<T>(
  deps: Deps,
  connection: SyrveConnection,
  correlationId: string,
  call: (sessionId: string) => Promise<CallResult<T>>,
): Promise<SessionCallOutcome<T>> {
  const { keys } = deps;
  const sessionKey = keys.syrveRuntimeToken(connection.organizationId, connection.connectionId);
  const failuresKey = keys.syrveReconnectFailures(connection.organizationId, connection.connectionId);
  let acquiredOnce = false;
  const budgetEndsAt = deps.clock.now() + REQUEST_BUDGET_MS;
  for (let attempt = 1; ; attempt += 1) {
    // A retry that could not finish a login and a call inside the budget is not started.
    if (attempt > 1 && deps.clock.now() + LOGIN_TIMEOUT_MS + CALL_TIMEOUT_MS > budgetEndsAt) {
      return { ok: false, reason: 'reconnect-exhausted', attempts: attempt - 1 };
    }
    // The hit path: session and circuit in one round trip.
    const [raw, failuresRaw] = await redisCall('syrve.session.read', () =>
      deps.redis.retrySafe.mget<(string | null)[]>(sessionKey, failuresKey),
    );
    const failures = Number(failuresRaw ?? 0);
    if (isCircuitOpen(failures)) return { ok: false, reason: 'circuit-open' };
    const cached = typeof raw === 'string' ? readSession(raw, connection) : undefined;
    let session: ActiveSession;
    if (cached !== undefined && typeof raw === 'string') {
      session = { sessionId: cached.sessionId, raw, source: 'cached' };
    } else {
      const acquired = await acquireSession(deps, connection, correlationId, budgetEndsAt - LOGIN_TIMEOUT_MS - CALL_TIMEOUT_MS);
      if (!acquired.ok) return acquired;
      session = acquired.session;
    }
    acquiredOnce ||= session.source === 'acquired';
    const result = await call(session.sessionId);
    if (session.raw === undefined && session.source === 'acquired') {
      // Not cached (caching off, or the lock expired under a slow login): nobody else will use it, so free the seat.
      await deps.syrve.logout({ baseUrl: connection.baseUrl }, session.sessionId);
    }
    if (result.ok) {
      if (failures > 0) await deps.redis.retrySafe.del(failuresKey).catch(() => undefined);
      return { ok: true, value: result.value, session: acquiredOnce ? 'acquired' : 'cached' };
    }
    if (result.reason === 'failed')
      return result.status === undefined
        ? { ok: false, reason: 'upstream-failed' }
        : { ok: false, reason: 'upstream-failed', status: result.status };
    const count = await countReconnectFailure(deps, { connection, failedSession: session.raw, statusCode: 403, correlationId });
    if (count >= MAX_RECONNECT_ATTEMPTS || attempt >= MAX_RECONNECT_ATTEMPTS)
      return { ok: false, reason: 'reconnect-exhausted', attempts: attempt };
  }
}
