// tenants.listDomains: an organisation's custom domains for its admin, verified and pending, with the TXT record each
// pending claim waits for. Read from PostgreSQL each time (never cached: the record must be what the verify checks).
import type { Deps } from '../../deps.ts';
import { dbCall } from '../../pg/unavailable.ts';
import { byDomain, pendingView, verifiedView, type DomainView } from './domain-claims.ts';

export type ListDomainsOutcome = { ok: true; domains: DomainView[] } | { ok: false; reason: 'not-found' };

interface Row {
  domain: string;
  verified: boolean;
  verified_at: string | null;
  token: string | null;
}

export async function listDomains(deps: Deps, input: { organizationId: string }): Promise<ListDomainsOutcome> {
  const rows = await dbCall('read', 'tenants.listDomains', (signal) =>
    deps.db.query<Row>(
      `WITH org AS (SELECT id FROM organizations WHERE id = $1 AND state <> 'deleted')
       SELECT NULL::text AS domain, false AS verified, NULL::timestamptz AS verified_at, NULL::text AS token FROM org
       UNION ALL
       SELECT d.domain, true, d.verified_at, NULL FROM organization_domains d WHERE d.organization_id = $1
       UNION ALL
       SELECT c.domain, false, NULL, c.token FROM organization_domain_claims c
        WHERE c.organization_id = $1 AND NOT EXISTS (SELECT 1 FROM organization_domains d WHERE d.domain = c.domain AND d.organization_id = $1)`,
      [input.organizationId],
      { signal },
    ),
  );
  // The first row says the organisation exists; the others are its domains.
  if (!rows.some((row) => row.domain === null)) return { ok: false, reason: 'not-found' };
  const views = rows.flatMap((row) => {
    if (row.domain === null) return [];
    return row.verified || row.token === null ? [verifiedView(row.domain, row.verified_at)] : [pendingView(row.domain, row.token)];
  });
  return { ok: true, domains: views.sort(byDomain) };
}
