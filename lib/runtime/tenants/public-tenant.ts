// What an anonymous caller may learn about a tenant: a whitelist, built field by field from the row, never a spread.
// The same object is the resolve cache's value, so nothing outside it can reach a pre-auth-readable key either.
import { publicTenantSchema, type PublicTenant } from '../../keys/index.ts';

// The whitelist is declared with the resolve cache's keys (lib/keys/defs/tenant.ts).
export { publicTenantSchema, type PublicTenant };

/** The columns the public lookups select: the whitelist's and nothing else (migrations/0010 names the server-only ones). */
export interface PublicTenantRow {
  id: string;
  slug: string;
  state: string;
  display_name: string;
  logo_url: string | null;
  primary_color: string | null;
}

/** undefined for a deleted organisation (or a state this code does not know): not found, like an unknown one. */
export function toPublicTenant(row: PublicTenantRow): PublicTenant | undefined {
  if (row.state !== 'active' && row.state !== 'suspended') return undefined;
  return publicTenantSchema.parse({
    organizationId: row.id,
    slug: row.slug,
    state: row.state,
    displayName: row.display_name,
    logoUrl: row.logo_url,
    primaryColor: row.primary_color,
  });
}
