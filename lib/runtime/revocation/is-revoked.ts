// The denylist read on every authenticated request: one pipeline of two EXISTS; any doubt is an error, never "not revoked".
import type { Keyspace } from '../../keys/index.ts';
import { sha256Hex } from '../../crypto/index.ts';
import { redisCall, type RedisStore } from '../../redis/index.ts';

export async function isRevoked(store: RedisStore, keys: Keyspace, token: { jti: string; sessionId: string }): Promise<boolean> {
  // Jti entries stop one token whose session is not its presenter's to end (lib/runtime/revocation/revoke-token.ts);
  // the read rides in the same pipeline, so it costs no round trip.
  const jtiKey = keys.revokedJti(await sha256Hex(token.jti));
  const sessionKey = keys.revokedSession(token.sessionId);
  // keepErrors: a per-command error must be inspected, not mistaken for a result.
  const replies = await redisCall('revocation.isRevoked', () =>
    store.check.pipeline().exists(jtiKey).exists(sessionKey).exec({ keepErrors: true }),
  );
  if (!Array.isArray(replies) || replies.length !== 2) throw new Error('revocation read: malformed pipeline reply');
  let revoked = false;
  for (const reply of replies) {
    if (reply.error !== undefined || typeof reply.result !== 'number') throw new Error('revocation read: a command failed');
    if (reply.result > 0) revoked = true;
  }
  return revoked;
}

/** The session's entry alone, for flows that hold a session id but no token (the SSO handoff's exchange). */
export async function isSessionRevoked(store: RedisStore, keys: Keyspace, sessionId: string): Promise<boolean> {
  const reply = await redisCall('revocation.isSessionRevoked', () => store.check.exists(keys.revokedSession(sessionId)));
  if (typeof reply !== 'number') throw new Error('revocation read: malformed reply');
  return reply > 0;
}
