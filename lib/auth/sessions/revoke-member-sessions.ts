// An OrganizationAdmin ends a member's sessions bound to that organisation — every session of this deployment that can
// act there (docs/design/tenants.md#tenant-isolation) — and only those: an admin of one tenant never ends a user's
// sessions in another (docs/design/revocation.md#revocation-writes-and-the-active-context).
import { auditActor, countedAuditInsert } from '../../pg/audit.ts';
import { dbCall } from '../../pg/unavailable.ts';
import type { Deps } from '../../deps.ts';
import { parseRevocationSeq, revocationSeqAfter } from '../../runtime/revocation/index.ts';
import { afterRevocation } from './after-revocation.ts';
import type { SessionsRevoked } from './revoke-all.ts';

export interface RevokeMemberInput {
  organizationId: string;
  /** The admin, already authorised for the organisation (authorizeOrgAdmin). */
  adminUserId: string;
  /** The organisation's API key that made this request, when one did: the audit row's actor in place of the admin. */
  actorApiKeyId?: string | undefined;
  memberUserId: string;
  correlationId: string;
}

export type RevokeMemberOutcome = SessionsRevoked | { ok: false; reason: 'not-a-member' };

export async function revokeMemberSessions(deps: Deps, input: RevokeMemberInput): Promise<RevokeMemberOutcome> {
  const nowMs = deps.clock.now();
  const now = new Date(nowMs);
  const audit = countedAuditInsert(
    {
      action: 'session.revoked_by_admin',
      ...auditActor(input.adminUserId, input.actorApiKeyId),
      organizationId: input.organizationId,
      locationId: null,
      targetId: input.memberUserId,
      correlationId: input.correlationId,
    },
    now,
    { detail: 'revokedCount', sql: 'SELECT count(*) FROM revoked', when: '(SELECT ok FROM member)' },
    4,
  );
  // One statement: the membership check, the revocation and its audit row, so nothing is revoked or audited for a user
  // who holds no role here. Sessions of an external identity provider carry no organisation and are out of reach: removing
  // the member's role is what ends their tokens here.
  const rows = await dbCall('commit', 'auth.sessions.revokeMember', (signal) =>
    deps.db.query<{ member: boolean; session_ids: string[]; revocation_seq: unknown }>(
      `WITH member AS (
         SELECT EXISTS (SELECT 1 FROM role_assignments WHERE user_id = $1 AND organization_id = $2) AS ok
       ), revoked AS (
         UPDATE sessions SET revoked_at = $3
          WHERE user_id = $1 AND organization_id = $2 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > $3)
            AND (SELECT ok FROM member)
         RETURNING id
       ), audit AS (${audit.text})
       SELECT (SELECT ok FROM member) AS member,
              COALESCE((SELECT array_agg(id::text) FROM revoked), '{}'::text[]) AS session_ids,
              ${revocationSeqAfter(['revoked'])} AS revocation_seq`,
      [input.memberUserId, input.organizationId, now.toISOString(), ...audit.params],
      { signal },
    ),
  );
  const row = rows[0];
  if (row?.member !== true) return { ok: false, reason: 'not-a-member' };
  const { denylistPending } = await afterRevocation(deps, {
    userId: input.memberUserId,
    sessionIds: row.session_ids,
    tokenExpiresAt: 0,
    nowMs,
    correlationId: input.correlationId,
    revocationSeq: parseRevocationSeq(row.revocation_seq),
  });
  return { ok: true, revoked: row.session_ids.length, denylistPending };
}
