// syrve.runtime: what Redis holds for a connection right now (session, refresh lock, reconnect circuit), in one round trip, never a value.
import { defineScript, runScript } from '../../redis/index.ts';
import type { Deps } from '../../deps.ts';
import { readSession } from './acquire-session.ts';
import type { SyrveConnection } from './connection.ts';
import { isCircuitOpen } from './policy.ts';

/**
 * KEYS[1] runtime session, KEYS[2] refresh lock, KEYS[3] reconnect-failure counter
 * Returns {session or '', its PTTL, the lock's PTTL, the failure count or '', its PTTL}; a PTTL of -2 is a missing key.
 * The session comes back so the caller judges it by the hot path's own rule (readSession); it goes no further.
 * Read-only: safe to run twice.
 */
export const READ_RUNTIME_STATE = defineScript({
  name: 'syrve.read-runtime-state',
  keys: ['session', 'lock', 'failures'],
  args: [],
  source: `
local session_key = KEYS[1]
local lock_key = KEYS[2]
local failures_key = KEYS[3]
return {
  redis.call('GET', session_key) or '',
  redis.call('PTTL', session_key),
  redis.call('PTTL', lock_key),
  redis.call('GET', failures_key) or '',
  redis.call('PTTL', failures_key)
}
`,
});

/** The connection's runtime state for an admin's eyes: whether things exist and for how long, never what they hold. */
export interface RuntimeState {
  connectionId: string;
  session: { cached: boolean; secondsLeft: number | null };
  refreshLock: { held: boolean; secondsLeft: number | null };
  reconnect: { failures: number; circuitOpen: boolean; secondsLeft: number | null };
}

export async function readRuntimeState(deps: Deps, connection: SyrveConnection): Promise<RuntimeState> {
  const { keys } = deps;
  const { organizationId, connectionId } = connection;
  const reply = await runScript(deps.redis.retrySafe, READ_RUNTIME_STATE, {
    keys: {
      session: keys.syrveRuntimeToken(organizationId, connectionId),
      lock: keys.syrveRuntimeTokenRefreshLock(organizationId, connectionId),
      failures: keys.syrveReconnectFailures(organizationId, connectionId),
    },
  });
  const [session, sessionTtl, lockTtl, failuresRaw, failuresTtl] = Array.isArray(reply) ? (reply as unknown[]) : [];
  // A session of another connection or credential version, or an unreadable one, is what the hot path ignores: not cached.
  const cached = typeof session === 'string' && session !== '' && readSession(session, connection) !== undefined;
  const counted = Number(failuresRaw === '' ? 0 : failuresRaw);
  const failures = Number.isSafeInteger(counted) && counted > 0 ? counted : 0;
  return {
    connectionId,
    session: { cached, secondsLeft: cached ? secondsLeft(sessionTtl) : null },
    refreshLock: { held: typeof lockTtl === 'number' && lockTtl !== -2, secondsLeft: secondsLeft(lockTtl) },
    reconnect: { failures, circuitOpen: isCircuitOpen(failures), secondsLeft: failures > 0 ? secondsLeft(failuresTtl) : null },
  };
}

/** Whole seconds until the key expires, rounded up (a lock with 200 ms left is still held); null without a TTL. */
function secondsLeft(pttl: unknown): number | null {
  return typeof pttl === 'number' && pttl >= 0 ? Math.ceil(pttl / 1000) : null;
}
