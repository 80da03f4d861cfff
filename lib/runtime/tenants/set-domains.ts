// tenants.setDomains: an OrganizationAdmin replaces the organisation's custom domains. A domain it does not hold yet
// becomes a pending claim with its own token (it does not resolve until verify-domain.ts proves it); a domain another
// organisation has verified refuses the whole set. One statement: the removals, the new claims and the audit row; then
// the resolve entries of every verified domain before are forgotten, so a removed one stops resolving.
import type { Deps } from '../../deps.ts';
import { auditActor, countedAuditInsert } from '../../pg/audit.ts';
import { dbCall } from '../../pg/unavailable.ts';
import { byDomain, newClaimToken, pendingView, verifiedView, type DomainView } from './domain-claims.ts';
import { invalidateTenant } from './invalidate-tenant.ts';

export type SetDomainsOutcome = { ok: true; domains: DomainView[] } | { ok: false; reason: 'not-found' | 'domain-taken' };

interface Row {
  slug: string | null;
  taken: number;
  old_domains: string[];
  changed: number;
  verified: Array<{ domain: string; verified_at: string | null }>;
  pending: Array<{ domain: string; token: string }>;
}

export async function setDomains(
  deps: Deps,
  input: {
    organizationId: string;
    actorUserId: string;
    actorApiKeyId?: string | undefined;
    domains: readonly string[];
    correlationId: string;
  },
): Promise<SetDomainsOutcome> {
  const now = new Date(deps.clock.now());
  const domains = [...new Set(input.domains)].sort();
  // A token for each, used only where a new claim is inserted; a claim already pending keeps the one already shown.
  const tokens = domains.map(() => newClaimToken());
  const audit = countedAuditInsert(
    {
      action: 'tenant.domains_updated',
      ...auditActor(input.actorUserId, input.actorApiKeyId),
      organizationId: input.organizationId,
      locationId: null,
      targetId: input.organizationId,
      correlationId: input.correlationId,
      details: { domainCount: domains.length },
    },
    now,
    {
      detail: 'changed',
      sql: '(SELECT count(*) FROM claimed) + (SELECT count(*) FROM removed) + (SELECT count(*) FROM unclaimed)',
      when: '(SELECT go FROM ok)',
    },
    5,
  );
  // `go`: the organisation exists and no domain of the set is another's verified one; otherwise nothing is written.
  // The organisation's row lock orders this against a verify of the same organisation (verify-domain.ts).
  const rows = await dbCall('commit', 'tenants.setDomains', (signal) =>
    deps.db.query<Row>(
      `WITH org AS (
         SELECT id, slug FROM organizations WHERE id = $1 AND state <> 'deleted' FOR UPDATE
       ), taken AS (
         SELECT domain FROM organization_domains WHERE domain = ANY ($2::text[]) AND organization_id <> $1
       ), ok AS (
         SELECT EXISTS (SELECT 1 FROM org) AND NOT EXISTS (SELECT 1 FROM taken) AS go
       ), old AS (
         SELECT domain, verified_at FROM organization_domains WHERE organization_id = $1
       ), removed AS (
         DELETE FROM organization_domains
          WHERE organization_id = $1 AND domain <> ALL ($2::text[]) AND (SELECT go FROM ok)
         RETURNING domain
       ), unclaimed AS (
         DELETE FROM organization_domain_claims
          WHERE organization_id = $1 AND domain <> ALL ($2::text[]) AND (SELECT go FROM ok)
         RETURNING domain
       ), claimed AS (
         INSERT INTO organization_domain_claims (organization_id, domain, token, created_at)
         SELECT $1, w.domain, w.token, $4 FROM unnest($2::text[], $3::text[]) AS w(domain, token)
          WHERE (SELECT go FROM ok) AND w.domain NOT IN (SELECT domain FROM old)
         ON CONFLICT (organization_id, domain) DO NOTHING
         RETURNING domain, token
       ), audit AS (${audit.text})
       SELECT (SELECT slug FROM org) AS slug,
              (SELECT count(*) FROM taken)::int AS taken,
              COALESCE((SELECT array_agg(domain) FROM old), '{}'::text[]) AS old_domains,
              ((SELECT count(*) FROM claimed) + (SELECT count(*) FROM removed) + (SELECT count(*) FROM unclaimed))::int AS changed,
              COALESCE((SELECT json_agg(json_build_object('domain', domain, 'verified_at', verified_at))
                          FROM old WHERE domain = ANY ($2::text[])), '[]'::json) AS verified,
              COALESCE((SELECT json_agg(json_build_object('domain', domain, 'token', token)) FROM (
                          SELECT domain, token FROM organization_domain_claims
                           WHERE organization_id = $1 AND domain = ANY ($2::text[]) AND domain NOT IN (SELECT domain FROM old)
                          UNION ALL SELECT domain, token FROM claimed) AS p), '[]'::json) AS pending`,
      [input.organizationId, domains, tokens, now.toISOString(), ...audit.params],
      { signal },
    ),
  );
  const row = rows[0];
  if (row === undefined || row.slug === null) return { ok: false, reason: 'not-found' };
  // Which organisation holds it is never said.
  if (row.taken > 0) return { ok: false, reason: 'domain-taken' };
  if (row.changed > 0) {
    // Only verified domains were ever cached; new claims are pending and resolve nowhere until verified.
    await invalidateTenant(deps, {
      organizationId: input.organizationId,
      slugs: [row.slug],
      domains: row.old_domains,
      correlationId: input.correlationId,
    });
  }
  const views = [
    ...row.verified.map((v) => verifiedView(v.domain, v.verified_at)),
    ...row.pending.map((p) => pendingView(p.domain, p.token)),
  ];
  return { ok: true, domains: views.sort(byDomain) };
}
