// tenants.forgetCache: an operator's "forget every cached entry of this organisation": one PostgreSQL statement (its
// names and the audit row), then one Redis round trip (the generation bump and the resolve entries) — O(1), no SCAN.
import type { Deps } from '../../deps.ts';
import { countedAuditInsert } from '../../pg/audit.ts';
import { dbCall } from '../../pg/unavailable.ts';
import { invalidateTenant } from './invalidate-tenant.ts';

export type ForgetTenantOutcome = { ok: true; landed: boolean } | { ok: false; reason: 'not-found' };

export async function forgetTenantCache(
  deps: Deps,
  input: { organizationId: string; operatorId: string; correlationId: string },
): Promise<ForgetTenantOutcome> {
  const audit = countedAuditInsert(
    {
      action: 'tenant.cache_invalidated',
      actorUserId: null,
      organizationId: input.organizationId,
      locationId: null,
      targetId: input.organizationId,
      correlationId: input.correlationId,
      details: { operatorId: input.operatorId },
    },
    new Date(deps.clock.now()),
    { detail: 'domainCount', sql: 'SELECT count(*) FROM domains', when: 'EXISTS (SELECT 1 FROM org)' },
    2,
  );
  const rows = await dbCall('commit', 'tenants.forgetCache', (signal) =>
    deps.db.query<{ slug: string; domains: string[] }>(
      `WITH org AS (SELECT slug FROM organizations WHERE id = $1),
            domains AS (SELECT domain FROM organization_domains WHERE organization_id = $1 AND EXISTS (SELECT 1 FROM org)),
            audit AS (${audit.text})
       SELECT org.slug, COALESCE((SELECT array_agg(domain) FROM domains), '{}'::text[]) AS domains FROM org`,
      [input.organizationId, ...audit.params],
      { signal },
    ),
  );
  const row = rows[0];
  if (row === undefined) return { ok: false, reason: 'not-found' };
  const { landed } = await invalidateTenant(deps, {
    organizationId: input.organizationId,
    slugs: [row.slug],
    domains: row.domains,
    correlationId: input.correlationId,
  });
  return { ok: true, landed };
}
