// auth.handoff.exchange: the target app trades the code, once, for an access token of the same session, for its audience;
// an app configured with a client secret proves itself first, and every exchange that hands out a token is audited.
import { writeAudit } from '../../pg/audit.ts';
import { dbCall } from '../../pg/unavailable.ts';
import { isSessionRevoked } from '../../runtime/revocation/index.ts';
import type { Deps } from '../../deps.ts';
import { signAccessTokenFor } from '../tokens/access-token.ts';
import { authenticateHandoffClient, type HandoffClientRefusal } from './client-auth.ts';
import { consumeHandoff } from './consume-handoff.ts';

export type ExchangeHandoffOutcome =
  | { ok: true; accessToken: string; expiresInSeconds: number; userId: string; audience: string }
  /** Unknown, used, expired, for another app, or its session ended meanwhile: one answer. */
  | { ok: false; reason: 'invalid' }
  /** The app did not prove itself with its client secret: the code was not touched. */
  | { ok: false; reason: 'client-refused'; refusal: HandoffClientRefusal }
  /** An app without a proven client secret, over handoff-exchange's limit for this address: the code was not touched. */
  | { ok: false; reason: 'rate-limited'; retryAfterSeconds: number };

export async function exchangeHandoff(
  deps: Deps,
  input: { code: string; audience: string; authorization: string | undefined; clientIp: string | undefined; correlationId: string },
): Promise<ExchangeHandoffOutcome> {
  const client = await authenticateHandoffClient(deps.config.ssoHandoffClientSecretDigests, input.audience, input.authorization);
  if (!client.ok) {
    // Why, and for which app, for the app's operator; never what was sent.
    deps.logger.warn('handoff_client_refused', { audience: input.audience, reason: client.reason, correlationId: input.correlationId });
    return { ok: false, reason: 'client-refused', refusal: client.reason };
  }
  // No code is ever issued for an app this deployment does not hand sessions to: refused before the store, so a made-up
  // audience is neither a fresh allowance of the per-(audience, address) limit nor a Redis round trip.
  if (!deps.config.ssoHandoffAudiences.includes(input.audience)) return { ok: false, reason: 'invalid' };
  // Counted per (audience, address) in the consume's own script, unless the app proved itself (docs/design/single-use.md#the-per-address-limit-in-the-consume).
  const consumed = await consumeHandoff(deps, {
    code: input.code,
    audience: input.audience,
    clientIp: input.clientIp,
    clientAuthenticated: client.authenticated,
  });
  if (consumed.kind === 'rate-limited') return { ok: false, reason: 'rate-limited', retryAfterSeconds: consumed.retryAfterSeconds };
  if (consumed.kind === 'none' || consumed.handoff.audience !== input.audience) return { ok: false, reason: 'invalid' };
  const handoff = consumed.handoff;
  // The session may have ended in the seconds since the code was issued: PostgreSQL (the truth) and the denylist
  // (what every verifier reads) must both still let it through; either failing to answer is a 503, never a token.
  const nowMs = deps.clock.now();
  const [rows, revoked] = await Promise.all([
    dbCall('read', 'auth.handoff.session', (signal) =>
      deps.db.query<{ revoked: boolean; seconds_left: number | null; organization_id: string | null }>(
        `SELECT revoked_at IS NOT NULL AS revoked,
                floor(extract(epoch FROM expires_at - $2::timestamptz))::int AS seconds_left, organization_id
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
  // Written before the token is signed: no token leaves without its row (a failure is a 503, the code spent). The row
  // names the user, the organisation of the session and the app; never the code, the token, the session or a secret.
  await dbCall('commit', 'auth.handoff.audit', (signal) =>
    writeAudit(
      deps.db,
      {
        action: 'auth.handoff_exchanged',
        actorUserId: handoff.userId,
        organizationId: session?.organization_id ?? null,
        locationId: null,
        targetId: handoff.userId,
        correlationId: input.correlationId,
        details: { audience: handoff.audience, clientAuthenticated: client.authenticated },
      },
      new Date(nowMs),
      { signal },
    ),
  );
  // The token is the same session's, so it carries the session's binding (`org`, from its row: the truth), as every
  // token this deployment signs does: the target app learns the one organisation the session acts in instead of reading
  // an unbound token as one that acts wherever the user holds a role, and a verifier of these keys that requires the
  // claim (lib/auth/verify-token.ts) takes it. An identity provider's session has no row and stays unbound.
  const access = await signAccessTokenFor(
    deps,
    {
      userId: handoff.userId,
      sessionId: handoff.sessionId,
      email: handoff.email,
      ...(session?.organization_id != null ? { organizationId: session.organization_id } : {}),
    },
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
