// GET /auth/context: one Redis round trip, sent beside the revocation check; its answer counts only once the check passed.
import type { Authentication } from '../authentication.ts';
import type { Deps } from '../../deps.ts';
import { decodeJson, redisCall } from '../../redis/index.ts';
import { activeContextSchema, contextKey, type ActiveContext } from './context-record.ts';

export type ReadContextOutcome = { ok: true; context: ActiveContext } | { ok: false; reason: 'none' };

export async function readActiveContext(deps: Deps, auth: Authentication): Promise<ReadContextOutcome> {
  // The key comes from the signature's claims; nothing read is handed out before the principal is.
  const pending = redisCall('context.read', () =>
    deps.redis.retrySafe.get(contextKey(deps, { userId: auth.claimedUserId, sessionId: auth.claimedSessionId })),
  );
  pending.catch(() => undefined);
  const principal = await auth.principal();
  // A value that fails its schema, or names another user, reads as none (fail closed).
  const context = decodeJson(activeContextSchema, await pending);
  if (context === undefined || context.userId !== principal.userId) return { ok: false, reason: 'none' };
  return { ok: true, context };
}
