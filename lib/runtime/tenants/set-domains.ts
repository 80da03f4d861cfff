// tenants.setDomains: an OrganizationAdmin replaces the organisation's custom domains. One statement: the removals, the
// additions (a domain another organisation holds fails the whole statement) and the audit row; then the resolve entries
// of every domain before and after are forgotten, so a removed one stops resolving and an added one resolves at once.
import type { Deps } from '../../deps.ts';
import { countedAuditInsert } from '../../pg/audit.ts';
import { dbCall, sqlState } from '../../pg/unavailable.ts';
import { invalidateTenant } from './invalidate-tenant.ts';

export type SetDomainsOutcome = { ok: true; domains: string[] } | { ok: false; reason: 'not-found' | 'domain-taken' };

interface Row {
  slug: string | null;
  old_domains: string[];
  added: number;
  removed: number;
}

export async function setDomains(
  deps: Deps,
  input: { organizationId: string; actorUserId: string; domains: readonly string[]; correlationId: string },
): Promise<SetDomainsOutcome> {
  const now = new Date(deps.clock.now());
  const domains = [...new Set(input.domains)].sort();
  const audit = countedAuditInsert(
    {
      action: 'tenant.domains_updated',
      actorUserId: input.actorUserId,
      organizationId: input.organizationId,
      locationId: null,
      targetId: input.organizationId,
      correlationId: input.correlationId,
      details: { domainCount: domains.length },
    },
    now,
    { detail: 'changed', sql: '(SELECT count(*) FROM added) + (SELECT count(*) FROM removed)', when: 'EXISTS (SELECT 1 FROM org)' },
    4,
  );
  let rows: Row[];
  try {
    rows = await dbCall('commit', 'tenants.setDomains', (signal) =>
      deps.db.query<Row>(
        `WITH org AS (
           SELECT id, slug FROM organizations WHERE id = $1 AND state <> 'deleted' FOR UPDATE
         ), old AS (
           SELECT domain FROM organization_domains WHERE organization_id = $1
         ), removed AS (
           DELETE FROM organization_domains
            WHERE organization_id = $1 AND domain <> ALL ($2::text[]) AND EXISTS (SELECT 1 FROM org)
           RETURNING domain
         ), added AS (
           INSERT INTO organization_domains (domain, organization_id, created_at)
           SELECT d, org.id, $3 FROM unnest($2::text[]) AS d, org WHERE d NOT IN (SELECT domain FROM old)
           RETURNING domain
         ), audit AS (${audit.text})
         SELECT (SELECT slug FROM org) AS slug,
                COALESCE((SELECT array_agg(domain) FROM old), '{}'::text[]) AS old_domains,
                (SELECT count(*) FROM added)::int AS added, (SELECT count(*) FROM removed)::int AS removed`,
        [input.organizationId, domains, now.toISOString(), ...audit.params],
        { signal },
      ),
    );
  } catch (error) {
    // The primary key: the domain belongs to another organisation. Which one is never said.
    if (sqlState(error) === '23505') return { ok: false, reason: 'domain-taken' };
    throw error;
  }
  const row = rows[0];
  if (row === undefined || row.slug === null) return { ok: false, reason: 'not-found' };
  if (row.added + row.removed > 0) {
    await invalidateTenant(deps, {
      organizationId: input.organizationId,
      slugs: [row.slug],
      domains: [...row.old_domains, ...domains],
      correlationId: input.correlationId,
    });
  }
  return { ok: true, domains };
}
