// tenants.suspend / tenants.reactivate: an operator changes an organisation's state. One statement writes the state, the
// reason (suspend) and the audit row naming the operator; then every cached entry of the tenant is forgotten.
import type { Deps } from '../../deps.ts';
import { countedAuditInsert } from '../../pg/audit.ts';
import { dbCall } from '../../pg/unavailable.ts';
import { invalidateTenant } from './invalidate-tenant.ts';

export type SetStateInput =
  | { organizationId: string; operatorId: string; state: 'suspended'; reason: string; correlationId: string }
  | { organizationId: string; operatorId: string; state: 'active'; correlationId: string };

export type SetStateOutcome =
  { ok: true; state: 'active' | 'suspended'; previousState: 'active' | 'suspended' } | { ok: false; reason: 'not-found' };

interface Row {
  slug: string;
  previous_state: 'active' | 'suspended';
  domains: string[];
}

export async function setTenantState(deps: Deps, input: SetStateInput): Promise<SetStateOutcome> {
  const now = new Date(deps.clock.now());
  const audit = countedAuditInsert(
    {
      action: input.state === 'suspended' ? 'tenant.suspended' : 'tenant.reactivated',
      // Operators are not users of any tenant: the row names them by their configured id.
      actorUserId: null,
      organizationId: input.organizationId,
      locationId: null,
      targetId: input.organizationId,
      correlationId: input.correlationId,
      details: { operatorId: input.operatorId },
    },
    now,
    { detail: 'updated', sql: 'SELECT count(*) FROM updated', when: 'EXISTS (SELECT 1 FROM updated)' },
    5,
  );
  // A deleted organisation stays deleted: neither operation reaches it.
  const rows = await dbCall('commit', `tenants.${input.state === 'suspended' ? 'suspend' : 'reactivate'}`, (signal) =>
    deps.db.query<Row>(
      `WITH old AS (
         SELECT id, state FROM organizations WHERE id = $1 AND state <> 'deleted' FOR UPDATE
       ), updated AS (
         UPDATE organizations o
            SET state = $2, suspension_reason = $3::text,
                suspended_at = CASE WHEN $2 = 'suspended' THEN COALESCE(o.suspended_at, $4) ELSE NULL END, updated_at = $4
           FROM old WHERE o.id = old.id
         RETURNING o.slug, old.state AS previous_state
       ), audit AS (${audit.text})
       SELECT u.slug, u.previous_state,
              COALESCE((SELECT array_agg(domain) FROM organization_domains WHERE organization_id = $1), '{}'::text[]) AS domains
         FROM updated u`,
      [input.organizationId, input.state, input.state === 'suspended' ? input.reason : null, now.toISOString(), ...audit.params],
      { signal },
    ),
  );
  const row = rows[0];
  if (row === undefined) return { ok: false, reason: 'not-found' };
  await invalidateTenant(deps, {
    organizationId: input.organizationId,
    slugs: [row.slug],
    domains: row.domains,
    correlationId: input.correlationId,
  });
  return { ok: true, state: input.state, previousState: row.previous_state };
}
