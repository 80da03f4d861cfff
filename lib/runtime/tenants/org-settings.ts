// tenants.readSettings: an organisation's settings object for its admin (a partner configuration), read through
// the cache for 300 s. On any Redis failure the PostgreSQL answer is returned: a restriction (the state) is never dropped.
import type { Deps } from '../../deps.ts';
import { orgSettingsSchema, type OrgSettings } from '../../keys/index.ts';
import { dbCall } from '../../pg/unavailable.ts';
import { ORG_SETTINGS_TTL_SECONDS, readThrough } from '../cache/index.ts';

// The whitelist (what an organisation's admin sees and the cache holds) is declared with its key (lib/keys/defs/cache.ts).
export { orgSettingsSchema };

interface SettingsRow {
  id: string;
  slug: string;
  state: string;
  display_name: string;
  logo_url: string | null;
  primary_color: string | null;
  domains: string[];
}

export type ReadSettingsOutcome = { ok: true; settings: OrgSettings } | { ok: false; reason: 'not-found' };

export async function readOrgSettings(
  deps: Deps,
  input: { organizationId: string; authorized: Promise<unknown>; correlationId: string },
): Promise<ReadSettingsOutcome> {
  const { value } = await readThrough(deps, {
    name: 'org-settings',
    entry: { organizationId: input.organizationId, resource: 'settings' },
    schema: orgSettingsSchema,
    ttlSeconds: ORG_SETTINGS_TTL_SECONDS,
    gate: input.authorized,
    correlationId: input.correlationId,
    source: () => loadSettings(deps, input.organizationId),
  });
  return value === undefined ? { ok: false, reason: 'not-found' } : { ok: true, settings: value };
}

async function loadSettings(deps: Deps, organizationId: string): Promise<OrgSettings | undefined> {
  const rows = await dbCall('read', 'tenants.settings', (signal) =>
    deps.db.query<SettingsRow>(
      `SELECT o.id, o.slug, o.state, COALESCE(o.display_name, o.name) AS display_name, o.logo_url, o.primary_color,
              COALESCE((SELECT array_agg(d.domain ORDER BY d.domain) FROM organization_domains d WHERE d.organization_id = o.id),
                       '{}'::text[]) AS domains
         FROM organizations o WHERE o.id = $1`,
      [organizationId],
      { signal },
    ),
  );
  const row = rows[0];
  if (row === undefined || (row.state !== 'active' && row.state !== 'suspended')) return undefined;
  // Field by field: a column added to the query later does not reach the cache or the answer by accident.
  return {
    organizationId: row.id,
    slug: row.slug,
    state: row.state,
    branding: { displayName: row.display_name, logoUrl: row.logo_url, primaryColor: row.primary_color },
    domains: row.domains,
  };
}
