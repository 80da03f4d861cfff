// The reconnect circuit: consecutive failed reconnects per connection in Redis; the 7th writes one critical audit event.
import { defineScript, runScript } from '../../redis/index.ts';
import { writeAudit } from '../../pg/audit.ts';
import { dbCall } from '../../pg/unavailable.ts';
import { errorKind } from '../../log/logger.ts';
import type { Deps } from '../../deps.ts';
import type { SyrveConnection } from './connection.ts';
import { MAX_RECONNECT_ATTEMPTS } from './policy.ts';

/**
 * KEYS[1] runtime session, KEYS[2] reconnect-failure counter
 * ARGV[1] the exact session that failed ('' when it was never cached: a refused login, or caching is off),
 * ARGV[2] the cooldown (the counter's TTL, set again on every increment)
 * Returns the new count, or -1 when the session is no longer the one that failed: someone else already counted this
 * session's 403 and replaced it (a stale 403 must neither evict a fresh session nor count twice).
 * Not safe to run twice (INCR): it runs on the atMostOnce client.
 */
export const COUNT_RECONNECT_FAILURE = defineScript({
  name: 'syrve.count-reconnect-failure',
  keys: ['session', 'failures'],
  args: ['failedSession', 'cooldown'],
  source: `
local session_key = KEYS[1]
local failures_key = KEYS[2]
local failed_session = ARGV[1]
local cooldown = tonumber(ARGV[2])
if failed_session ~= '' then
  if redis.call('GET', session_key) ~= failed_session then return -1 end
  redis.call('DEL', session_key)
end
local count = redis.call('INCR', failures_key)
redis.call('EXPIRE', failures_key, cooldown)
return count
`,
});

export interface FailedReconnect {
  connection: SyrveConnection;
  /** The stored session that answered 403, or undefined for a refused login or an uncached session. */
  failedSession: string | undefined;
  statusCode: number;
  correlationId: string;
}

/** Counts one failure; returns the count (-1: a stale 403 someone else already counted). */
export async function countReconnectFailure(deps: Deps, failure: FailedReconnect): Promise<number> {
  const { keys, config } = deps;
  const { organizationId, connectionId } = failure.connection;
  const reply = await runScript(deps.redis.atMostOnce, COUNT_RECONNECT_FAILURE, {
    keys: {
      session: keys.syrveRuntimeToken(organizationId, connectionId),
      failures: keys.syrveReconnectFailures(organizationId, connectionId),
    },
    args: { failedSession: failure.failedSession ?? '', cooldown: config.syrve.reconnectCooldownSeconds },
  });
  const count = typeof reply === 'number' ? reply : Number.NaN;
  // Exactly one caller sees the count reach the cap (Redis serialises the increments), so one event is written.
  if (count === MAX_RECONNECT_ATTEMPTS) await auditExhausted(deps, failure, count);
  return count;
}

async function auditExhausted(deps: Deps, failure: FailedReconnect, attemptCount: number): Promise<void> {
  const { organizationId, connectionId } = failure.connection;
  deps.logger.error('syrve_reconnect_exhausted', {
    organizationId,
    connectionId,
    statusCode: failure.statusCode,
    attemptCount,
    correlationId: failure.correlationId,
  });
  try {
    await dbCall('commit', 'syrve.reconnect_exhausted', (signal) =>
      writeAudit(
        deps.db,
        {
          action: 'syrve.reconnect_exhausted',
          actorUserId: null,
          organizationId,
          locationId: null,
          targetId: connectionId,
          correlationId: failure.correlationId,
          details: { severity: 'critical', statusCode: failure.statusCode, attemptCount },
        },
        new Date(deps.clock.now()),
        { signal },
      ),
    );
  } catch (error) {
    // The circuit is open either way; the ERROR line above is the record when PostgreSQL is out.
    deps.logger.error('syrve_audit_failed', {
      action: 'syrve.reconnect_exhausted',
      errorKind: errorKind(error),
      correlationId: failure.correlationId,
    });
  }
}
