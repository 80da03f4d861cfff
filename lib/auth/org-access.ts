// RBAC and tenant checks in PostgreSQL, done before any runtime object is created, read, cancelled or indexed.
import { errors } from '../http/app-error.ts';
import type { Db } from '../pg/db.ts';
import { dbCall } from '../pg/unavailable.ts';
import type { Authentication } from './authentication.ts';
import type { Principal } from './claims.ts';

/**
 * The caller's principal, once it is an organisation-wide OrganizationAdmin of `organizationId`, the organisation is
 * not suspended (and, with `locationId`, the location belongs to that organisation). The RBAC read runs beside the revocation check, so the
 * request waits for the slower of the two, not both. The check's answer comes first: a revoked token is 401 and an
 * unanswered denylist 503 whatever RBAC said, and only then does an RBAC refusal (403, 400) or failure (503) count.
 * Nothing is written by either, so nothing needs undoing when the other refuses.
 */
export async function authorizeOrgAdmin(
  db: Db,
  auth: Authentication,
  check: { organizationId: string; locationId?: string | null },
): Promise<Principal> {
  // A key was checked for this organisation, its scope and its tenant's state before the handler ran, with no role to
  // read; keys act for the organisation, never at one Outlet (docs/design/api-keys.md#scopes).
  if (auth.apiKey !== undefined) {
    if (auth.claimedOrganizationId !== check.organizationId || (check.locationId ?? null) !== null) throw errors.FORBIDDEN();
    return auth.principal();
  }
  const role = requireOrgAdmin(db, {
    userId: auth.claimedUserId,
    boundSessionId: auth.claimedOrganizationId !== undefined ? auth.claimedSessionId : undefined,
    ...check,
  });
  // Awaited below, after the revocation answer that takes precedence over it.
  role.catch(() => undefined);
  // Noted before the principal is asked for: the rate limiter spends the tenant's quota only on a caller it admits.
  auth.noteRoleCheck(role);
  const principal = await auth.principal();
  await role;
  return principal;
}

/**
 * One query answers all three: the admin role for the organisation, whether the caller holds any role there and the
 * organisation's state (docs/design/tenants.md#suspension), and that the location (if any) belongs to it. A member of a
 * suspended organisation, admin or not, is refused TENANT_SUSPENDED before anything else; anyone else gets FORBIDDEN,
 * so an outsider cannot tell a suspended organisation from one they have no role in. A bound token (its `org` claim,
 * already equal to `organizationId` in requireAuth) is admitted only while its session row is bound here too, so the
 * tokens a session held before it switched organisation stop acting in the old one.
 */
async function requireOrgAdmin(
  db: Db,
  check: { userId: string; boundSessionId: string | undefined; organizationId: string; locationId?: string | null },
): Promise<void> {
  const rows = await dbCall('read', 'rbac.requireOrgAdmin', (signal) =>
    db.query<{ is_admin: boolean; suspended_member: boolean; location_ok: boolean }>(
      `SELECT
         (EXISTS (SELECT 1 FROM role_assignments
                   WHERE user_id = $1 AND organization_id = $2 AND location_id IS NULL
                     AND role_code = 'OrganizationAdmin')
          AND ($4::uuid IS NULL OR EXISTS (SELECT 1 FROM sessions WHERE id = $4::uuid AND organization_id = $2))
          -- A deleted organisation is an unknown one to everyone (docs/design/tenants.md#deletion).
          AND NOT EXISTS (SELECT 1 FROM organizations WHERE id = $2 AND state = 'deleted')) AS is_admin,
         (EXISTS (SELECT 1 FROM organizations WHERE id = $2 AND state = 'suspended')
          AND EXISTS (SELECT 1 FROM role_assignments WHERE user_id = $1 AND organization_id = $2)) AS suspended_member,
         ($3::uuid IS NULL OR EXISTS (SELECT 1 FROM locations WHERE id = $3::uuid AND organization_id = $2)) AS location_ok`,
      [check.userId, check.organizationId, check.locationId ?? null, check.boundSessionId ?? null],
      { signal },
    ),
  );
  const row = rows[0];
  if (row?.suspended_member === true) throw errors.TENANT_SUSPENDED();
  if (row?.is_admin !== true) throw errors.FORBIDDEN();
  if (row.location_ok !== true) throw errors.VALIDATION_FAILED('locationId: not a location of this organisation');
}
