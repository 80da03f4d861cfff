// Health: one PING and one `INFO memory` to each Redis store (main and revocation) and one trivial query to
// PostgreSQL, in parallel.
import { redisCall, type RedisStore } from '../redis/index.ts';
import { EVICTION_INFO_COMMAND, evictionPolicyFromInfo, type EvictionPolicy } from '../redis/eviction.ts';
import { dbCall } from '../pg/unavailable.ts';
import type { Deps } from '../deps.ts';

type Status = 'ok' | 'down';

export interface Health {
  status: 'ok' | 'degraded';
  redis: Status;
  /** The denylist store: when it is down every authenticated route answers 503, so health must say so. */
  revocation: Status;
  postgres: Status;
  /**
   * Each store's `maxmemory-policy`, or `unknown` when it does not say. Reported, never part of `status`: a store that
   * may evict still answers, and health must not flap on a setting; `npm run keys:audit` fails on it (ops/README.md).
   */
  eviction: { redis: EvictionPolicy; revocation: EvictionPolicy };
}

const ping = (store: RedisStore, operation: string): Promise<Status> =>
  redisCall(operation, () => store.check.ping()).then(
    (reply): Status => (reply === 'PONG' ? 'ok' : 'down'),
    (): Status => 'down',
  );

const evictionPolicy = (store: RedisStore, operation: string): Promise<EvictionPolicy> =>
  redisCall(operation, () => store.check.exec<string>([...EVICTION_INFO_COMMAND])).then(
    evictionPolicyFromInfo,
    (): EvictionPolicy => 'unknown',
  );

export async function checkHealth(deps: Deps): Promise<Health> {
  const main = ping(deps.redis, 'health.ping');
  // One store configured for both (dev, test): the same answer, without a second PING.
  const revocationStatus = deps.revocation === deps.redis ? main : ping(deps.revocation, 'health.pingRevocation');
  const mainEviction = evictionPolicy(deps.redis, 'health.eviction');
  const revocationEviction = deps.revocation === deps.redis ? mainEviction : evictionPolicy(deps.revocation, 'health.evictionRevocation');
  const [redis, revocation, postgres, redisEviction, revocationEvictionPolicy] = await Promise.all([
    main,
    revocationStatus,
    dbCall('read', 'health.select', (signal) => deps.db.query('SELECT 1 AS ok', [], { signal })).then(
      (): Status => 'ok',
      (): Status => 'down',
    ),
    mainEviction,
    revocationEviction,
  ]);
  const status = redis === 'ok' && revocation === 'ok' && postgres === 'ok' ? 'ok' : 'degraded';
  return { status, redis, revocation, postgres, eviction: { redis: redisEviction, revocation: revocationEvictionPolicy } };
}
