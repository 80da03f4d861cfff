// auth.handoff.exchange: the target app trades the code, once, for an access token of the same session, for its audience.
import { dbCall } from '../../pg/unavailable.ts';
import { isSessionRevoked } from '../../runtime/revocation/index.ts';
import { singleUse } from '../../runtime/single-use/index.ts';
import type { Deps } from '../../deps.ts';
import { signAccessToken } from '../tokens/access-token.ts';
import { handoffSchema } from './handoff-code.ts';

export type ExchangeHandoffOutcome =
  | { ok: true; accessToken: string; expiresInSeconds: number; userId: string; audience: string }
  /** Unknown, used, expired, for another app, or its session ended meanwhile: one answer. */
  | { ok: false; reason: 'invalid' };

export async function exchangeHandoff(
  deps: Deps,
  input: { code: string; audience: string; correlationId: string },
): Promise<ExchangeHandoffOutcome> {
  const consumed = await singleUse.consume(deps, 'sso-handoff', handoffSchema, input.code);
  if (!consumed.ok || consumed.value.audience !== input.audience) return { ok: false, reason: 'invalid' };
  const handoff = consumed.value;
  // The session may have ended in the seconds since the code was issued: PostgreSQL (the truth) and the denylist
  // (what every verifier reads) must both still let it through; either failing to answer is a 503, never a token.
  const nowMs = deps.clock.now();
  const [rows, revoked] = await Promise.all([
    dbCall('read', 'auth.handoff.session', (signal) =>
      deps.db.query<{ revoked: boolean; seconds_left: number | null }>(
        `SELECT revoked_at IS NOT NULL AS revoked,
                floor(extract(epoch FROM expires_at - $2::timestamptz))::int AS seconds_left
           FROM sessions WHERE id = $1`,
        [handoff.sessionId, new Date(nowMs).toISOString()],
        { signal },
      ),
    ),
    isSessionRevoked(deps, handoff.sessionId, undefined),
  ]);
  const session = rows[0];
  if (revoked || session?.revoked === true) return { ok: false, reason: 'invalid' };
  // An external identity provider's session has no row and no end here: its token lives the usual access-token life.
  const secondsLeft = session?.seconds_left ?? deps.config.signIn.accessTokenTtlSeconds;
  if (secondsLeft < 1) return { ok: false, reason: 'invalid' };
  const ttlSeconds = Math.min(deps.config.signIn.accessTokenTtlSeconds, secondsLeft);
  const access = await signAccessToken(
    deps.config.auth,
    { userId: handoff.userId, sessionId: handoff.sessionId, email: handoff.email },
    { nowMs, ttlSeconds, audience: handoff.audience },
  );
  return {
    ok: true,
    accessToken: access.token,
    expiresInSeconds: access.expiresInSeconds,
    userId: handoff.userId,
    audience: handoff.audience,
  };
}
