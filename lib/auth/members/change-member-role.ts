// members.changeRole: an OrganizationAdmin changes the role a member holds at one scope of the organisation. The change
// and its audit row are one statement; the organisation always keeps an organisation-wide OrganizationAdmin.
import type { Deps } from '../../deps.ts';
import type { RoleCode } from '../../keys/index.ts';
import { auditActor, computedAuditInsert } from '../../pg/audit.ts';
import { dbCall } from '../../pg/unavailable.ts';
import { isoUtc, type Member } from './member.ts';

export interface ChangeRoleInput {
  organizationId: string;
  /** The admin, already authorised for the organisation (authorizeOrgAdmin). */
  adminUserId: string;
  /** The organisation's API key that made this request, when one did: the audit row's actor in place of the admin. */
  actorApiKeyId?: string | undefined;
  memberUserId: string;
  /** Which of the member's roles changes: the one at this Outlet, or (null) the organisation-wide one. */
  locationId: string | null;
  roleCode: RoleCode;
  correlationId: string;
}

export type ChangeRoleOutcome =
  /** `changed` false: the member already held that role there; nothing was written. */
  | { ok: true; member: Member; changed: boolean }
  /** No such member, or no role of theirs at that scope: a role is changed here, never granted (invites grant). */
  | { ok: false; reason: 'not-found' }
  /** The member is the organisation's only organisation-wide OrganizationAdmin and would stop being one. */
  | { ok: false; reason: 'last-admin' };

interface Row {
  outcome: 'not-found' | 'unchanged' | 'last-admin' | 'changed';
  email: string | null;
  joined_at: string | null;
}

/**
 * One statement: members_change_role (migrations/0013_members.sql) takes the organisation's row first, so concurrent
 * changes of one organisation's members run one after the other and the last-admin check counts what committed
 * before it; the audit row (`member.role_changed`, the admin as actor, from and to roles) is written only when the
 * role changed. The next request of every session of the member reads the new role: authorizeOrgAdmin asks
 * PostgreSQL each time, and no role is cached anywhere.
 */
export async function changeMemberRole(deps: Deps, input: ChangeRoleInput): Promise<ChangeRoleOutcome> {
  const audit = computedAuditInsert(
    {
      action: 'member.role_changed',
      ...auditActor(input.adminUserId, input.actorApiKeyId),
      organizationId: input.organizationId,
      locationId: input.locationId,
      targetId: input.memberUserId,
      correlationId: input.correlationId,
      details: { toRole: input.roleCode },
    },
    new Date(deps.clock.now()),
    { computed: { fromRole: 'SELECT from_role FROM changed' }, when: "(SELECT outcome FROM changed) = 'changed'" },
    5,
  );
  const rows = await dbCall('commit', 'members.changeRole', (signal) =>
    deps.db.query<Row>(
      `WITH changed AS MATERIALIZED (SELECT * FROM members_change_role($1::uuid, $2::uuid, $3::uuid, $4::text)),
            audit AS (${audit.text})
       SELECT outcome, email, ${isoUtc('joined_at', 'MS')} AS joined_at FROM changed`,
      [input.organizationId, input.memberUserId, input.locationId, input.roleCode, ...audit.params],
      { signal },
    ),
  );
  const row = rows[0];
  if (row === undefined || row.outcome === 'not-found') return { ok: false, reason: 'not-found' };
  if (row.outcome === 'last-admin') return { ok: false, reason: 'last-admin' };
  return {
    ok: true,
    changed: row.outcome === 'changed',
    member: {
      userId: input.memberUserId,
      email: row.email ?? '',
      roleCode: input.roleCode,
      locationId: input.locationId,
      joinedAt: row.joined_at ?? '',
    },
  };
}
