// Health: one PING to the main Redis store and one trivial query to PostgreSQL, in parallel.
import { redisCall } from '../redis/index.ts';
import { dbCall } from '../pg/unavailable.ts';
import type { Deps } from '../deps.ts';

type Status = 'ok' | 'down';

export interface Health {
  status: 'ok' | 'degraded';
  redis: 'ok' | 'down';
  postgres: 'ok' | 'down';
}

export async function checkHealth(deps: Deps): Promise<Health> {
  const [redis, postgres] = await Promise.all([
    redisCall('health.ping', () => deps.redis.check.ping()).then(
      (reply): Status => (reply === 'PONG' ? 'ok' : 'down'),
      (): Status => 'down',
    ),
    dbCall('read', 'health.select', (signal) => deps.db.query('SELECT 1 AS ok', [], { signal })).then(
      (): Status => 'ok',
      (): Status => 'down',
    ),
  ]);
  return { status: redis === 'ok' && postgres === 'ok' ? 'ok' : 'degraded', redis, postgres };
}
