// What a signed-in client holds: a short access token and the session's current refresh token, both shown once.
import type { Deps } from '../../deps.ts';
import { signAccessTokenFor } from '../tokens/access-token.ts';

export interface SessionTokens {
  tokenType: 'Bearer';
  accessToken: string;
  expiresInSeconds: number;
  refreshToken: string;
  userId: string;
  organizationId: string;
  /** The session ends then, however often it is refreshed. */
  sessionExpiresAtUtc: string;
}

export async function sessionTokens(
  deps: Deps,
  session: { sessionId: string; userId: string; email: string; organizationId: string; expiresAtMs: number },
  refreshToken: string,
  nowMs: number,
): Promise<SessionTokens> {
  // Never past the session's end: a refreshed token of a session about to end lives only as long as it does.
  const ttlSeconds = Math.max(1, Math.min(deps.config.signIn.accessTokenTtlSeconds, Math.floor((session.expiresAtMs - nowMs) / 1000)));
  const access = await signAccessTokenFor(deps, session, { nowMs, ttlSeconds });
  return {
    tokenType: 'Bearer',
    accessToken: access.token,
    expiresInSeconds: access.expiresInSeconds,
    refreshToken,
    userId: session.userId,
    organizationId: session.organizationId,
    sessionExpiresAtUtc: new Date(session.expiresAtMs).toISOString(),
  };
}
