// Whether a configured OpenID provider may sign people in to an organisation: the organisation exists (not deleted) and
// lists the provider in oidc_provider_organizations (migrations/0016_oidc_provider_organizations.sql).
import { dbCall } from '../../pg/unavailable.ts';
import type { Deps } from '../../deps.ts';

/** `method-not-allowed`: the organisation lists the provider, but its sign-in policy does not allow OpenID sign-in. */
export type ProviderAccess = 'allowed' | 'not-allowed' | 'method-not-allowed' | 'unknown-organization';

/** One read; PostgreSQL not answering throws (503): a sign-in whose tenant cannot be checked must not begin. */
export async function providerAccess(deps: Deps, providerId: string, organizationId: string): Promise<ProviderAccess> {
  const rows = await dbCall('read', 'auth.oidc.provider-access', (signal) =>
    deps.db.query<{ allowed: boolean; method_allowed: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM oidc_provider_organizations p
                       WHERE p.organization_id = o.id AND p.provider_id = $2) AS allowed,
              'oidc' = ANY (o.sign_in_methods) AS method_allowed
         FROM organizations o
        WHERE o.id = $1 AND o.state <> 'deleted'`,
      [organizationId, providerId],
      { signal },
    ),
  );
  const row = rows[0];
  if (row === undefined) return 'unknown-organization';
  if (!row.allowed) return 'not-allowed';
  return row.method_allowed ? 'allowed' : 'method-not-allowed';
}
