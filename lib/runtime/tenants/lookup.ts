// The two public lookups in PostgreSQL: exact slug, exact domain. Each selects the whitelist's columns only, so a
// server-only field (suspension reason, integration settings, feature flags) is never even read on the public path.
import { dbCall } from '../../pg/unavailable.ts';
import type { Deps } from '../../deps.ts';
import type { PublicTenantRow } from './public-tenant.ts';

export type ResolveQuery = { kind: 'slug'; slug: string } | { kind: 'domain'; host: string };

const PUBLIC_COLUMNS = 'o.id, o.slug, o.state, COALESCE(o.display_name, o.name) AS display_name, o.logo_url, o.primary_color';

/** A domain is matched exactly and only against custom domains: never a slug, never a parent domain. */
export async function lookupTenant(deps: Deps, query: ResolveQuery): Promise<PublicTenantRow | undefined> {
  const rows = await dbCall('read', `tenants.resolve.${query.kind}`, (signal) =>
    query.kind === 'slug'
      ? deps.db.query<PublicTenantRow>(`SELECT ${PUBLIC_COLUMNS} FROM organizations o WHERE o.slug = $1`, [query.slug], { signal })
      : deps.db.query<PublicTenantRow>(
          `SELECT ${PUBLIC_COLUMNS} FROM organization_domains d JOIN organizations o ON o.id = d.organization_id WHERE d.domain = $1`,
          [query.host],
          { signal },
        ),
  );
  return rows[0];
}
