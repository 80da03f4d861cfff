// auth.handoff.issue: an authenticated caller asks for a one-time code that another configured app can exchange for a
// token of the same session.
import type { Deps } from '../../deps.ts';
import { singleUse } from '../../runtime/single-use/index.ts';
import { SINGLE_USE_TTL_SECONDS } from '../../keys/index.ts';
import type { Principal } from '../claims.ts';
import { handoffSchema } from './handoff-code.ts';

export type IssueHandoffOutcome =
  { ok: true; code: string; expiresInSeconds: number } | { ok: false; reason: 'unknown-audience' | 'no-verified-email' };

export async function issueHandoff(
  deps: Deps,
  input: { principal: Principal; audience: string; correlationId: string },
): Promise<IssueHandoffOutcome> {
  if (!deps.config.ssoHandoffAudiences.includes(input.audience)) return { ok: false, reason: 'unknown-audience' };
  // The target app trusts the email of the token it gets; only an email the issuer vouched for is handed on.
  if (input.principal.verifiedEmail === undefined) return { ok: false, reason: 'no-verified-email' };
  const code = await singleUse.issue(deps, 'sso-handoff', handoffSchema, {
    userId: input.principal.userId,
    sessionId: input.principal.sessionId,
    email: input.principal.verifiedEmail,
    audience: input.audience,
    issuedAtUtc: new Date(deps.clock.now()).toISOString(),
    correlationId: input.correlationId,
  });
  return { ok: true, code, expiresInSeconds: SINGLE_USE_TTL_SECONDS['sso-handoff'] };
}
