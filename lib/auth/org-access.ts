// RBAC and tenant checks in PostgreSQL, done before any runtime object is created, read, cancelled or indexed.
import { forbidden, validationFailed } from '../http/app-error.ts';
import type { Db } from '../pg/db.ts';
import { dbCall } from '../pg/unavailable.ts';

export const ROLE_CODES = ['OrganizationAdmin', 'Accountant', 'Viewer'] as const;
export type RoleCode = (typeof ROLE_CODES)[number];

/**
 * Requires an organisation-wide OrganizationAdmin role for `organizationId`; with `locationId`, also that the
 * location belongs to that organisation. One query answers both.
 */
export async function requireOrgAdmin(
  db: Db,
  check: { userId: string; organizationId: string; locationId?: string | null },
): Promise<void> {
  const rows = await dbCall('read', 'rbac.requireOrgAdmin', (signal) =>
    db.query<{ is_admin: boolean; location_ok: boolean }>(
      `SELECT
         EXISTS (SELECT 1 FROM role_assignments
                  WHERE user_id = $1 AND organization_id = $2 AND location_id IS NULL
                    AND role_code = 'OrganizationAdmin') AS is_admin,
         ($3::uuid IS NULL OR EXISTS (SELECT 1 FROM locations WHERE id = $3::uuid AND organization_id = $2)) AS location_ok`,
      [check.userId, check.organizationId, check.locationId ?? null],
      { signal },
    ),
  );
  const row = rows[0];
  if (row?.is_admin !== true) throw forbidden();
  if (row.location_ok !== true) throw validationFailed('locationId: not a location of this organisation');
}
