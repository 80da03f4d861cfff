// The caller's memberships: every organisation where they hold a role, with the outlets they may choose as the active
// context there (all of them under an organisation-wide role, else those their roles name), each marked with whether the
// presenting session reaches it without a new sign-in. Read beside the revocation check.
import * as z from 'zod';
import type { Deps } from '../deps.ts';
import { dbCall } from '../pg/unavailable.ts';
import type { Authentication } from './authentication.ts';
import { ROLE_CODES } from '../keys/index.ts';

/** Far above any real person's memberships; bounds the answer (and the query) all the same. */
const MAX_MEMBERSHIP_ROWS = 1_000;

export const membershipSchema = z.object({
  organizationId: z.uuid(),
  name: z.string(),
  /** The organisation-wide role, if any. */
  roleCode: z.enum(ROLE_CODES).nullable(),
  switchable: z
    .boolean()
    .describe(
      "Whether PUT /auth/context reaches it with this session's token, no new sign-in: an active organisation that is the session's own or accepts its sign-in (an OIDC session: one that lists its provider). An identity provider's token (no organisation) reaches every active one.",
    ),
  locations: z.array(z.object({ locationId: z.uuid(), name: z.string(), roleCode: z.enum(ROLE_CODES).nullable() })),
});

export type Membership = z.infer<typeof membershipSchema>;

interface Row {
  organization_id: string;
  organization_name: string;
  org_role: Membership['roleCode'];
  switchable: boolean;
  location_id: string | null;
  location_name: string | null;
  location_role: Membership['roleCode'];
}

export async function listMemberships(deps: Deps, auth: Authentication): Promise<Membership[]> {
  const rows = dbCall('read', 'auth.memberships', (signal) =>
    deps.db.query<Row>(
      // Deleted organisations are gone for everyone; a suspended one still lists (its routes say why they refuse).
      // The mark is the switch's own rule (auth_sign_in_accepted, migrations/0021_session_switch.sql) on the session's row;
      // a bound token whose row is elsewhere (a switch moved it) or missing reaches nothing; a suspended one nobody.
      `WITH mine AS (
         SELECT organization_id, location_id, role_code FROM role_assignments WHERE user_id = $1
       ), session AS (
         SELECT organization_id, method, provider_id FROM sessions WHERE id = $2 AND user_id = $1
       ), orgs AS (
         SELECT o.id, COALESCE(o.display_name, o.name) AS name,
                (SELECT role_code FROM mine WHERE mine.organization_id = o.id AND mine.location_id IS NULL) AS org_role,
                (o.state = 'active'
                 AND ($3::uuid IS NULL
                      OR COALESCE((SELECT s.organization_id = $3::uuid
                                          AND (o.id = $3::uuid OR auth_sign_in_accepted(s.method, s.provider_id, o.id))
                                     FROM session s), false))) AS switchable
           FROM organizations o
          WHERE o.state <> 'deleted' AND EXISTS (SELECT 1 FROM mine WHERE mine.organization_id = o.id)
       )
       SELECT orgs.id AS organization_id, orgs.name AS organization_name, orgs.org_role, orgs.switchable,
              l.id AS location_id, l.name AS location_name,
              (SELECT role_code FROM mine WHERE mine.location_id = l.id) AS location_role
         FROM orgs
         LEFT JOIN locations l ON l.organization_id = orgs.id
              AND (orgs.org_role IS NOT NULL OR EXISTS (SELECT 1 FROM mine WHERE mine.location_id = l.id))
        ORDER BY orgs.name, orgs.id, l.name, l.id
        LIMIT ${MAX_MEMBERSHIP_ROWS}`,
      [auth.claimedUserId, auth.claimedSessionId, auth.claimedOrganizationId ?? null],
      { signal },
    ),
  );
  rows.catch(() => undefined);
  // The revocation answer comes first, as for every read beside it (docs/design/revocation.md#reads-beside-the-revocation-check).
  await auth.principal();
  const byOrganization = new Map<string, Membership>();
  for (const row of await rows) {
    let membership = byOrganization.get(row.organization_id);
    if (membership === undefined) {
      membership = {
        organizationId: row.organization_id,
        name: row.organization_name,
        roleCode: row.org_role,
        switchable: row.switchable,
        locations: [],
      };
      byOrganization.set(row.organization_id, membership);
    }
    if (row.location_id !== null && row.location_name !== null) {
      membership.locations.push({ locationId: row.location_id, name: row.location_name, roleCode: row.location_role });
    }
  }
  return [...byOrganization.values()];
}
