// Whether a configured OpenID provider may sign people in to an organisation: the organisation exists (not deleted) and
// lists the provider in oidc_provider_organizations (migrations/0016_oidc_provider_organizations.sql).
import { dbCall } from '../../pg/unavailable.ts';
import type { Deps } from '../../deps.ts';

export type ProviderAccess = 'allowed' | 'not-allowed' | 'unknown-organization';

/** One read; PostgreSQL not answering throws (503): a sign-in whose tenant cannot be checked must not begin. */
export async function providerAccess(deps: Deps, providerId: string, organizationId: string): Promise<ProviderAccess> {
  const rows = await dbCall('read', 'auth.oidc.provider-access', (signal) =>
    deps.db.query<{ allowed: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM oidc_provider_organizations p
                       WHERE p.organization_id = o.id AND p.provider_id = $2) AS allowed
         FROM organizations o
        WHERE o.id = $1 AND o.state <> 'deleted'`,
      [organizationId, providerId],
      { signal },
    ),
  );
  const row = rows[0];
  if (row === undefined) return 'unknown-organization';
  return row.allowed ? 'allowed' : 'not-allowed';
}
