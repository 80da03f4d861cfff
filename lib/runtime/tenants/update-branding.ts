// tenants.updateBranding: an OrganizationAdmin changes what the sign-in page shows (slug, display name, logo, colour).
// One statement writes the change and its audit row; then the tenant's cached entries are forgotten (best effort).
import type { Deps } from '../../deps.ts';
import { auditActor, countedAuditInsert } from '../../pg/audit.ts';
import { dbCall, sqlState } from '../../pg/unavailable.ts';
import { invalidateTenant } from './invalidate-tenant.ts';

export interface BrandingChange {
  slug?: string;
  displayName?: string;
  /** null clears it. */
  logoUrl?: string | null;
  primaryColor?: string | null;
}

export interface Branding {
  slug: string;
  displayName: string;
  logoUrl: string | null;
  primaryColor: string | null;
}

export type UpdateBrandingOutcome = { ok: true; branding: Branding } | { ok: false; reason: 'not-found' | 'slug-taken' };

interface Row {
  slug: string;
  old_slug: string;
  display_name: string;
  logo_url: string | null;
  primary_color: string | null;
  domains: string[];
}

export async function updateBranding(
  deps: Deps,
  input: { organizationId: string; actorUserId: string; actorApiKeyId?: string | undefined; change: BrandingChange; correlationId: string },
): Promise<UpdateBrandingOutcome> {
  const now = new Date(deps.clock.now());
  const { change } = input;
  const fields = (['slug', 'displayName', 'logoUrl', 'primaryColor'] as const).filter((field) => change[field] !== undefined);
  const audit = countedAuditInsert(
    {
      action: 'tenant.branding_updated',
      ...auditActor(input.actorUserId, input.actorApiKeyId),
      organizationId: input.organizationId,
      locationId: null,
      targetId: input.organizationId,
      correlationId: input.correlationId,
      details: { fields: fields.join(',') },
    },
    now,
    { detail: 'updated', sql: 'SELECT count(*) FROM updated', when: 'EXISTS (SELECT 1 FROM updated)' },
    11,
  );
  let rows: Row[];
  try {
    rows = await dbCall('commit', 'tenants.updateBranding', (signal) =>
      deps.db.query<Row>(
        `WITH old AS (
           SELECT id, slug FROM organizations WHERE id = $1 AND state <> 'deleted' FOR UPDATE
         ), updated AS (
           UPDATE organizations o
              SET slug = CASE WHEN $2::boolean THEN $3::text ELSE o.slug END,
                  display_name = CASE WHEN $4::boolean THEN $5::text ELSE o.display_name END,
                  logo_url = CASE WHEN $6::boolean THEN $7::text ELSE o.logo_url END,
                  primary_color = CASE WHEN $8::boolean THEN $9::text ELSE o.primary_color END,
                  updated_at = $10
             FROM old WHERE o.id = old.id
           RETURNING o.slug, old.slug AS old_slug, COALESCE(o.display_name, o.name) AS display_name, o.logo_url, o.primary_color
         ), audit AS (${audit.text})
         SELECT u.slug, u.old_slug, u.display_name, u.logo_url, u.primary_color,
                COALESCE((SELECT array_agg(domain) FROM organization_domains WHERE organization_id = $1), '{}'::text[]) AS domains
           FROM updated u`,
        [
          input.organizationId,
          change.slug !== undefined,
          change.slug ?? null,
          change.displayName !== undefined,
          change.displayName ?? null,
          change.logoUrl !== undefined,
          change.logoUrl ?? null,
          change.primaryColor !== undefined,
          change.primaryColor ?? null,
          now.toISOString(),
          ...audit.params,
        ],
        { signal },
      ),
    );
  } catch (error) {
    if (sqlState(error) === '23505') return { ok: false, reason: 'slug-taken' };
    throw error;
  }
  const row = rows[0];
  if (row === undefined) return { ok: false, reason: 'not-found' };
  await invalidateTenant(deps, {
    organizationId: input.organizationId,
    slugs: [row.old_slug, row.slug],
    domains: row.domains,
    correlationId: input.correlationId,
  });
  return {
    ok: true,
    branding: { slug: row.slug, displayName: row.display_name, logoUrl: row.logo_url, primaryColor: row.primary_color },
  };
}
