// After a change of a key commits: its read-through entry is deleted, so the change holds on the next request.
import type { Deps } from '../../deps.ts';
import { errorKind } from '../../log/logger.ts';
import { redisCall } from '../../redis/index.ts';

/**
 * Best effort: the change also raised the organisation's api_key_seq in its statement, so an entry this delete did not
 * reach (Redis down, or an entry restored later) is refused within a second anyway (docs/design/api-keys.md#revocation).
 */
export async function forgetCachedApiKey(deps: Deps, organizationId: string, keyHash: string, correlationId: string): Promise<void> {
  try {
    await redisCall('apiKeys.forget', () => deps.redis.retrySafe.del(deps.keys.apiKeyEntry(organizationId, keyHash)));
  } catch (error) {
    deps.logger.warn('api_key_forget_failed', { errorKind: errorKind(error), correlationId });
  }
}
