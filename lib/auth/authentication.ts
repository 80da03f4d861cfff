// A verified token whose revocation check is under way: its principal is handed out only once the denylist has answered.
import { errors } from '../http/app-error.ts';
import { errorKind } from '../log/logger.ts';
import { isRevoked } from '../runtime/revocation/index.ts';
import type { Deps } from '../deps.ts';
import type { Principal } from './claims.ts';

export interface Authentication {
  /**
   * Who the token's signature says the caller is, before the denylist has answered: only for reads that run beside
   * the revocation check (the RBAC query), never for a write or a runtime object.
   */
  readonly claimedUserId: string;
  /** The token's session as its signature says, under the same rule: for reads beside the check only (the active context). */
  readonly claimedSessionId: string;
  /** The principal once the denylist says the token is not revoked; rejects with 401 TOKEN_REVOKED or 503 REVOCATION_UNAVAILABLE. */
  principal(): Promise<Principal>;
}

/**
 * Starts the one revocation round trip at once and returns without waiting for it. `defer` keeps a repair the check
 * starts (a denylist that is not whole) running after the answer, where the runtime allows.
 */
export function startRevocationCheck(
  deps: Deps,
  principal: Principal,
  defer: ((work: Promise<unknown>) => void) | undefined,
): Authentication {
  const checked = isRevoked(deps, principal, defer).then(
    (revoked) => {
      if (revoked) throw errors.TOKEN_REVOKED();
      return principal;
    },
    (error: unknown) => {
      // A revoked token must never pass: no answer from the denylist (or from PostgreSQL standing in for it) is a refusal.
      deps.logger.warn('revocation_check_failed', { errorKind: errorKind(error) });
      throw errors.REVOCATION_UNAVAILABLE();
    },
  );
  // Awaited later (by the handler, and by requireAuth after it); until then a refusal must not count as unhandled.
  checked.catch(() => undefined);
  return { claimedUserId: principal.userId, claimedSessionId: principal.sessionId, principal: () => checked };
}
