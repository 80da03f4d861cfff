// Health: one PING to each Redis store (main and revocation) and one trivial query to PostgreSQL, in parallel.
import { redisCall, type RedisStore } from '../redis/index.ts';
import { dbCall } from '../pg/unavailable.ts';
import type { Deps } from '../deps.ts';

type Status = 'ok' | 'down';

export interface Health {
  status: 'ok' | 'degraded';
  redis: Status;
  /** The denylist store: when it is down every authenticated route answers 503, so health must say so. */
  revocation: Status;
  postgres: Status;
}

const ping = (store: RedisStore, operation: string): Promise<Status> =>
  redisCall(operation, () => store.check.ping()).then(
    (reply): Status => (reply === 'PONG' ? 'ok' : 'down'),
    (): Status => 'down',
  );

export async function checkHealth(deps: Deps): Promise<Health> {
  const main = ping(deps.redis, 'health.ping');
  // One store configured for both (dev, test): the same answer, without a second PING.
  const revocationStatus = deps.revocation === deps.redis ? main : ping(deps.revocation, 'health.pingRevocation');
  const [redis, revocation, postgres] = await Promise.all([
    main,
    revocationStatus,
    dbCall('read', 'health.select', (signal) => deps.db.query('SELECT 1 AS ok', [], { signal })).then(
      (): Status => 'ok',
      (): Status => 'down',
    ),
  ]);
  const status = redis === 'ok' && revocation === 'ok' && postgres === 'ok' ? 'ok' : 'degraded';
  return { status, redis, revocation, postgres };
}
