// The demo tenant's public names: the slug `demo` and the custom domain demo.runstate.test, so the resolve route has
// something to find before anyone signs in. Idempotent, and it never takes a name from someone else or undoes a rename.
import type { SeedClient } from './seed.ts';

export const DEMO_TENANT_NAMES = { slug: 'demo', domain: 'demo.runstate.test' } as const;

/** The names the demo tenant has now: `demo` unless an admin renamed it (or another organisation holds it). */
export async function seedDemoTenantNames(
  client: SeedClient,
  organizationId: string,
): Promise<{ slug: string; domain: string | undefined }> {
  // Only a slug still derived from the id is replaced: a slug an admin chose stays.
  await client.query(
    `UPDATE organizations SET slug = $2
      WHERE id = $1 AND slug = 'o-' || replace(id::text, '-', '')
        AND NOT EXISTS (SELECT 1 FROM organizations WHERE slug = $2)`,
    [organizationId, DEMO_TENANT_NAMES.slug],
  );
  await client.query('INSERT INTO organization_domains (domain, organization_id) VALUES ($1, $2) ON CONFLICT (domain) DO NOTHING', [
    DEMO_TENANT_NAMES.domain,
    organizationId,
  ]);
  const { rows } = await client.query(
    `SELECT o.slug, (SELECT d.domain FROM organization_domains d WHERE d.organization_id = o.id ORDER BY d.domain = $2 DESC, d.domain LIMIT 1) AS domain
       FROM organizations o WHERE o.id = $1`,
    [organizationId, DEMO_TENANT_NAMES.domain],
  );
  return {
    slug: String(rows[0]?.slug),
    domain: rows[0]?.domain === null || rows[0]?.domain === undefined ? undefined : String(rows[0].domain),
  };
}
