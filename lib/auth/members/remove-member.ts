// members.remove: an OrganizationAdmin removes a member from the organisation: every role they hold in it, every live
// session they opened in it, the active contexts that point at it, the member counts they were in and the active
// invites they created there.
import type { Deps } from '../../deps.ts';
import { auditActor, computedAuditInsert } from '../../pg/audit.ts';
import { dbCall } from '../../pg/unavailable.ts';
import { MEMBER_COUNT_FORGET_MAX_OUTLETS, tenants } from '../../runtime/tenants/index.ts';
import { activeContext } from '../context/index.ts';
import { parseRevocationSeq, revocationSeqAfter } from '../../runtime/revocation/index.ts';
import { afterRevocation } from '../sessions/after-revocation.ts';
import { cancelCreatorInvites } from '../../runtime/invites/cancel-creator-invites.ts';

export interface RemoveMemberInput {
  organizationId: string;
  /** The admin, already authorised for the organisation (authorizeOrgAdmin). */
  adminUserId: string;
  /** The organisation's API key that made this request, when one did: the audit row's actor in place of the admin. */
  actorApiKeyId?: string | undefined;
  memberUserId: string;
  correlationId: string;
}

export type RemoveMemberOutcome =
  /** `denylistPending`: revoked sessions whose denylist entry did not land (the denylist repair writes them). */
  { ok: true; revoked: number; denylistPending: string[] } | { ok: false; reason: 'not-found' } | { ok: false; reason: 'last-admin' };

interface Row {
  revocation_seq: unknown;
  outcome: 'not-found' | 'last-admin' | 'removed';
  location_ids: string[];
  session_ids: string[];
}

/**
 * One statement commits the removal: members_remove (migrations/0013_members.sql; the organisation's row first, as a
 * role change takes it, then the roles and the sessions opened here) and the `member.removed` audit row naming the admin,
 * the organisation-wide role held, how many roles and sessions went. Then, side by side and best effort (PostgreSQL
 * holds the truth): the denylist entries and the contexts of the revoked sessions (afterRevocation, as an admin's revoke
 * does), every other context of the member that points at this organisation, the member counts they were in, and the
 * active invites they created here (cancelCreatorInvites: a removed admin's invites do not outlive the role; what
 * holds that for certain is the grant's check of the creator's role, migrations/0023_invite_grant_guards.sql).
 * Sessions opened in other organisations and an identity provider's stay live; none of them has a role here any more.
 */
export async function removeMember(deps: Deps, input: RemoveMemberInput): Promise<RemoveMemberOutcome> {
  const nowMs = deps.clock.now();
  const now = new Date(nowMs);
  const audit = computedAuditInsert(
    {
      action: 'member.removed',
      ...auditActor(input.adminUserId, input.actorApiKeyId),
      organizationId: input.organizationId,
      locationId: null,
      targetId: input.memberUserId,
      correlationId: input.correlationId,
    },
    now,
    {
      computed: {
        fromRole: 'SELECT org_role FROM removed',
        roleCount: 'SELECT role_count FROM removed',
        revokedCount: 'SELECT cardinality(session_ids) FROM removed',
      },
      when: "(SELECT outcome FROM removed) = 'removed'",
    },
    5,
  );
  const rows = await dbCall('commit', 'members.remove', (signal) =>
    deps.db.query<Row>(
      `WITH removed AS MATERIALIZED (SELECT * FROM members_remove($1::uuid, $2::uuid, $3::timestamptz, $4::int)),
            audit AS (${audit.text})
       SELECT outcome, location_ids::text[] AS location_ids, session_ids::text[] AS session_ids,
              ${revocationSeqAfter(['removed'])} AS revocation_seq
         FROM removed`,
      [input.organizationId, input.memberUserId, now.toISOString(), MEMBER_COUNT_FORGET_MAX_OUTLETS, ...audit.params],
      { signal },
    ),
  );
  const row = rows[0];
  if (row === undefined || row.outcome === 'not-found') return { ok: false, reason: 'not-found' };
  if (row.outcome === 'last-admin') return { ok: false, reason: 'last-admin' };
  const [{ denylistPending }] = await Promise.all([
    afterRevocation(deps, {
      userId: input.memberUserId,
      sessionIds: row.session_ids,
      tokenExpiresAt: 0,
      nowMs,
      correlationId: input.correlationId,
      revocationSeq: parseRevocationSeq(row.revocation_seq),
    }),
    activeContext.dropForOrganization(deps, {
      userId: input.memberUserId,
      organizationId: input.organizationId,
      correlationId: input.correlationId,
    }),
    tenants.forgetMemberCounts(deps, {
      organizationId: input.organizationId,
      locationIds: row.location_ids,
      correlationId: input.correlationId,
    }),
    cancelCreatorInvites(deps, {
      organizationId: input.organizationId,
      creatorUserId: input.memberUserId,
      actorUserId: input.adminUserId,
      actorApiKeyId: input.actorApiKeyId,
      correlationId: input.correlationId,
    }),
  ]);
  return { ok: true, revoked: row.session_ids.length, denylistPending };
}
