// The auth.oidc_failed row of a refused callback: only for an organisation that exists, and throttled per client IP and
// per organisation (lib/runtime/throttle/limits.ts), so failed callbacks cannot flood a tenant's audit trail.
import { conditionalAuditInsert } from '../../pg/audit.ts';
import { dbCall } from '../../pg/unavailable.ts';
import { throttle } from '../../runtime/throttle/index.ts';
import { errorKind } from '../../log/logger.ts';
import type { Deps } from '../../deps.ts';
import type { OidcFailureReason } from './failure-reason.ts';

export interface FailureAuditInput {
  providerId: string;
  organizationId: string;
  reason: OidcFailureReason;
  clientIp: string | undefined;
  correlationId: string;
}

export type FailureAuditOutcome = 'written' | 'throttled' | 'no-organization' | 'failed';

/** Best-effort: the refusal stands whatever happens here; a row that was not written is logged, never a 503. */
export async function auditOidcFailure(deps: Deps, input: FailureAuditInput): Promise<FailureAuditOutcome> {
  // The IP bucket first, the organisation's only for what it let through: one address cannot use up the tenant's bucket.
  // Per address as every per-IP limiter counts it (an IPv6 caller per /64); fails open, so Redis down still audits.
  const byIp = await throttle.hitIp(deps, { action: 'oidc-audit-ip', clientIp: input.clientIp, correlationId: input.correlationId });
  const byOrg = byIp.allowed
    ? await throttle.hit(deps, {
        action: 'oidc-audit-org',
        scope: { kind: 'org', id: input.organizationId },
        subject: input.organizationId,
        correlationId: input.correlationId,
      })
    : byIp;
  if (!byOrg.allowed) {
    deps.logger.warn('oidc_audit_throttled', { provider: input.providerId, reason: input.reason, correlationId: input.correlationId });
    return 'throttled';
  }
  try {
    // Written only when the organisation exists: $4 is the event's organisation id (auditStatement's parameter order).
    const statement = conditionalAuditInsert(
      {
        action: 'auth.oidc_failed',
        actorUserId: null,
        organizationId: input.organizationId,
        locationId: null,
        targetId: null,
        correlationId: input.correlationId,
        details: { provider: input.providerId, reason: input.reason },
      },
      new Date(deps.clock.now()),
      "EXISTS (SELECT 1 FROM organizations o WHERE o.id = $4::uuid AND o.state <> 'deleted')",
      1,
    );
    const rows = await dbCall('commit', 'auth.oidc.failed', (signal) =>
      deps.db.query(`${statement.text} RETURNING id`, statement.params, { signal }),
    );
    return rows.length === 1 ? 'written' : 'no-organization';
  } catch (error) {
    deps.logger.warn('oidc_audit_failed', { provider: input.providerId, errorKind: errorKind(error), correlationId: input.correlationId });
    return 'failed';
  }
}
