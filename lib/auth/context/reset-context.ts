// DELETE /auth/context: the session's context is dropped; a session without one is reset too.
import type { Principal } from '../claims.ts';
import type { Deps } from '../../deps.ts';
import { redisCall } from '../../redis/index.ts';
import { contextKey } from './context-record.ts';

export async function resetActiveContext(deps: Deps, principal: Principal): Promise<void> {
  await redisCall('context.reset', () => deps.redis.retrySafe.del(contextKey(deps, principal)));
}
