// What an anonymous caller may learn about a tenant: a whitelist, built field by field from the row, never a spread.
// The same object is the resolve cache's value, so nothing outside it can reach a pre-auth-readable key either.
import * as z from 'zod';

export const publicTenantSchema = z.strictObject({
  organizationId: z.uuid(),
  slug: z.string().min(1).max(63),
  /** Deleted tenants are not found at all; a suspended one still resolves, so the sign-in page can say so. */
  state: z.enum(['active', 'suspended']),
  displayName: z.string().min(1).max(100),
  logoUrl: z.string().max(2048).nullable(),
  primaryColor: z
    .string()
    .regex(/^#[0-9a-f]{6}$/)
    .nullable(),
});

export type PublicTenant = z.infer<typeof publicTenantSchema>;

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
