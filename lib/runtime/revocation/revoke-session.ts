// The denylist write for one session (refresh-token reuse): the bulk write with one id, its failure logged with ids only.
import type { Keyspace } from '../../keys/index.ts';
import type { Logger } from '../../log/logger.ts';
import type { RedisStore } from '../../redis/index.ts';
import { revokeSessions, type SessionsRevocation } from './revoke-sessions.ts';

export type SessionRevocation = Omit<SessionsRevocation, 'sessionIds'> & { sessionId: string };

export async function revokeSession(
  store: RedisStore,
  keys: Keyspace,
  logger: Logger,
  revocation: SessionRevocation,
): Promise<{ written: boolean }> {
  const { sessionId, ...rest } = revocation;
  const { notLanded } = await revokeSessions(store, keys, logger, { ...rest, sessionIds: [sessionId] });
  return { written: notLanded.length === 0 };
}
