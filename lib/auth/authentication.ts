// A verified token whose revocation check is under way: its principal is handed out only once the denylist has answered.
import { errors } from '../http/app-error.ts';
import { errorKind } from '../log/logger.ts';
import { RedisDefectError } from '../redis/index.ts';
import { isRevoked } from '../runtime/revocation/index.ts';
import type { Deps } from '../deps.ts';
import type { RateLimitDecision } from '../runtime/ratelimit/index.ts';
import type { Principal } from './claims.ts';
import { rateLimitedError } from './rate-limit-target.ts';
import { RoleAdmission } from './role-admission.ts';

export interface Authentication {
  /**
   * Who the token's signature says the caller is, before the denylist has answered: only for reads that run beside
   * the revocation check (the RBAC query), never for a write or a runtime object.
   */
  readonly claimedUserId: string;
  /** The token's session as its signature says, under the same rule: for reads beside the check only (the active context). */
  readonly claimedSessionId: string;
  /** The organisation the token is bound to (its `org` claim), under the same rule; undefined for an unbound token. */
  readonly claimedOrganizationId: string | undefined;
  /**
   * The principal once the denylist says the token is not revoked and the rate limiter has counted the request; rejects
   * with 401 TOKEN_REVOKED, 503 REVOCATION_UNAVAILABLE or 429 RATE_LIMITED (in that order of precedence).
   */
  principal(): Promise<Principal>;
  /**
   * The organisation's role check of this request (authorizeOrgAdmin notes it before asking for the principal), so the
   * rate limiter knows whether it admitted the caller (lib/auth/role-admission.ts). A principal asked for before any
   * role check was noted means none will count.
   */
  noteRoleCheck(check: Promise<unknown>): void;
  /** Set when the caller is an API key (lib/auth/api-keys/require-api-key.ts), already checked for this route and organisation. */
  readonly apiKey?: { apiKeyId: string; scopes: readonly string[] };
}

/**
 * Starts the one revocation round trip at once and returns without waiting for it. `defer` keeps a repair the check
 * starts (a denylist that is not whole) running after the answer, where the runtime allows. `limit` is the rate
 * limiter's count, already under way on the main store beside it (undefined: it failed open; it rejects only on a defect).
 */
export function startRevocationCheck(
  deps: Deps,
  principal: Principal,
  defer: ((work: Promise<unknown>) => void) | undefined,
  limit: Promise<RateLimitDecision | undefined> = Promise.resolve(undefined),
  admission: RoleAdmission = new RoleAdmission(),
): Authentication {
  const checked = isRevoked(deps, principal, defer).then(
    async (revoked) => {
      if (revoked) throw errors.TOKEN_REVOKED();
      const decision = await limit;
      if (decision !== undefined && !decision.allowed) throw rateLimitedError(decision);
      return principal;
    },
    (error: unknown) => {
      // A defect of ours (a WRONGTYPE, a script error) is a 500, not an outage (lib/redis/reply-class.ts).
      if (error instanceof RedisDefectError) throw error;
      // A revoked token must never pass: no answer from the denylist (or from PostgreSQL standing in for it) is a refusal.
      deps.logger.warn('revocation_check_failed', { errorKind: errorKind(error) });
      throw errors.REVOCATION_UNAVAILABLE();
    },
  );
  // Awaited later (by the handler, and by requireAuth after it); until then a refusal must not count as unhandled. The
  // limiter rejects only on a defect (RedisDefectError), which may land before anything awaits it.
  checked.catch(() => undefined);
  limit.catch(() => undefined);
  return {
    claimedUserId: principal.userId,
    claimedSessionId: principal.sessionId,
    claimedOrganizationId: principal.organizationId,
    principal: () => {
      admission.close();
      return checked;
    },
    noteRoleCheck: (check) => admission.note(check),
  };
}
