// members.list: an organisation's role assignments from PostgreSQL, in the order they were granted, one keyset page
// at a time (docs/design/tenants.md#members-and-roles).
import type { Deps } from '../../deps.ts';
import { dbCall } from '../../pg/unavailable.ts';
import { isoUtc, type Member } from './member.ts';
import { decodeMemberCursor, encodeMemberCursor } from './member-cursor.ts';

export type MemberPage = { ok: true; members: Member[]; nextCursor: string | null } | { ok: false; reason: 'bad-cursor' };

interface MemberRow {
  id: string;
  user_id: string;
  email: string;
  role_code: Member['roleCode'];
  location_id: string | null;
  /** To the microsecond, for the cursor. */
  at_exact: string;
  /** To the millisecond, for the answer. */
  joined_at: string;
}

/**
 * A page of `limit` assignments after the cursor's, ordered by (created_at, id), which
 * role_assignments_member_list_idx holds (migrations/0013_members.sql): a grant made after a page was read is newer than
 * its cursor, so it lands on a later page and never shifts one; a removal or a role change moves nothing. The caller
 * has checked the admin role.
 */
export async function listMembers(deps: Deps, request: { organizationId: string; limit: number; cursor?: string }): Promise<MemberPage> {
  const params: unknown[] = [request.organizationId, request.limit + 1];
  let after = '';
  if (request.cursor !== undefined) {
    const position = decodeMemberCursor(request.cursor);
    if (position === undefined) return { ok: false, reason: 'bad-cursor' };
    after = 'AND (r.created_at, r.id) > ($3::timestamptz, $4::uuid)';
    params.push(position.at, position.id);
  }
  const rows = await dbCall('read', 'members.list', (signal) =>
    deps.db.query<MemberRow>(
      `SELECT r.id, r.user_id, u.email, r.role_code, r.location_id,
              ${isoUtc('r.created_at', 'US')} AS at_exact, ${isoUtc('r.created_at', 'MS')} AS joined_at
         FROM role_assignments r JOIN users u ON u.id = r.user_id
        WHERE r.organization_id = $1 ${after}
        ORDER BY r.created_at, r.id
        LIMIT $2`,
      params,
      { signal },
    ),
  );
  const page = rows.slice(0, request.limit);
  const last = page.at(-1);
  return {
    ok: true,
    members: page.map((row) => ({
      userId: row.user_id,
      email: row.email,
      roleCode: row.role_code,
      locationId: row.location_id,
      joinedAt: row.joined_at,
    })),
    nextCursor: rows.length > request.limit && last !== undefined ? encodeMemberCursor({ at: last.at_exact, id: last.id }) : null,
  };
}
