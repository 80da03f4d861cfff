// The durable outcome of an invite in PostgreSQL: written with the grant or the cancel audit row, read before anything is given back.
import { uuidv7 } from 'uuidv7';
import { auditActor, auditStatement, conditionalAuditInsert, type AuditEvent } from '../../pg/audit.ts';
import type { PgCallKind } from '../../pg/call-policy.ts';
import { dbCall, sqlState } from '../../pg/unavailable.ts';
import type { Deps } from '../../deps.ts';
import { ROLE_CODES, type RoleCode } from '../../keys/index.ts';
import type { InviteRecord } from './invite-record.ts';

export interface StoredOutcome {
  outcome: 'accepted' | 'cancelled';
  actorUserId: string;
}

export type RecordOutcome =
  | { ok: true }
  /** Someone wrote this invite's outcome first. */
  | { ok: false; reason: 'finished'; finished: StoredOutcome }
  | { ok: false; reason: 'email-belongs-to-another-user' }
  | { ok: false; reason: 'role-conflict'; heldRole: RoleCode }
  /** The organisation is suspended (RS403 from invite_assert_grantable): refused for now, the invite is given back. */
  | { ok: false; reason: 'tenant-suspended' }
  /** The invite can never be granted any more (RS410 from invite_assert_grantable): it is cancelled for this reason. */
  | { ok: false; reason: 'void'; cause: VoidCause };

/** Why an invite can no longer be granted: its creator lost the admin role there, or its organisation is deleted. */
export type VoidCause = 'creator-not-admin' | 'organization-deleted';
const VOID_CAUSES: readonly VoidCause[] = ['creator-not-admin', 'organization-deleted'];

/**
 * Why an invite was cancelled other than by an admin's cancel (the audit row's `reason`): its creator was removed from
 * the organisation (lib/auth/members/remove-member.ts), or a grant found it void.
 */
export type CancelReason = 'member-removed' | VoidCause;
export const CANCEL_REASONS: readonly CancelReason[] = ['member-removed', ...VOID_CAUSES];

interface Attempt {
  record: InviteRecord;
  actorUserId: string;
  /** The organisation's API key that acted (a cancel), when one did: the audit row names it in place of the person. */
  actorApiKeyId?: string | undefined;
  correlationId: string;
}

/**
 * One transaction, one round trip: the outcome row first (its primary key makes a second finisher fail at once, so a
 * finished invite answers as finished whatever happened since), then the user, what invite_assert_grantable checks
 * (migrations/0023: the organisation neither suspended nor deleted and the creator still its organisation-wide
 * OrganizationAdmin, under the organisation's row lock that removals, role changes and state changes take), the role
 * unless the same one is already held (with `member.added` when it made a member), and `invite.accepted`. A different role at that scope rolls the whole
 * transaction back (RS409 from invite_assert_role_compatible, migrations/0003).
 */
export async function recordAcceptance(deps: Deps, attempt: Attempt): Promise<RecordOutcome> {
  const at = new Date(deps.clock.now());
  const user = {
    // A known id is a no-op; the same email under another id is an identity conflict and fails (23505).
    text: 'INSERT INTO users (id, email) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING',
    params: [attempt.actorUserId, attempt.record.normalizedEmail],
  };
  return finish(deps, 'invites.accept.grant', attempt.record.inviteId, grantStatements(attempt, at, user));
}

/**
 * A newcomer's registration, as one transaction: the acceptance's statements, with the account created (its email is
 * the invite's, proven by the mailbox the token went to; its password hash set) and `user.registered` besides. An
 * email that another account holds fails on users_email_key, so two registrations never make two accounts.
 */
export async function recordRegistration(deps: Deps, attempt: Attempt & { passwordHash: string }): Promise<RecordOutcome> {
  const at = new Date(deps.clock.now());
  const user = {
    text: 'INSERT INTO users (id, email, password_hash) VALUES ($1, $2, $3)',
    params: [attempt.actorUserId, attempt.record.normalizedEmail, attempt.passwordHash],
  };
  const registered = auditStatement(
    {
      action: 'user.registered',
      actorUserId: attempt.actorUserId,
      organizationId: attempt.record.organizationId,
      locationId: attempt.record.locationId,
      targetId: attempt.actorUserId,
      correlationId: attempt.correlationId,
      details: { via: 'invite', inviteId: attempt.record.inviteId },
    },
    at,
  );
  return finish(deps, 'invites.register.grant', attempt.record.inviteId, [...grantStatements(attempt, at, user), registered]);
}

/** Built before the call: an invalid audit event is a bug, not an unavailable database. */
function grantStatements(attempt: Attempt, at: Date, user: { text: string; params: unknown[] }) {
  const { record, actorUserId } = attempt;
  return [
    outcomeStatement('accepted', attempt, at),
    user,
    {
      text: 'SELECT invite_assert_grantable($1, $2)',
      params: [record.organizationId, record.createdByUserId],
    },
    {
      text: 'SELECT invite_assert_role_compatible($1, $2, $3, $4)',
      params: [actorUserId, record.organizationId, record.locationId, record.roleCode],
    },
    memberAddedStatement(attempt, at),
    inviteAudit('invite.accepted', attempt, at),
  ];
}

/**
 * The role, unless the same one is already held, and `member.added` when it made the user a member: the role was
 * inserted and the user held no role in the organisation before (the NOT EXISTS reads the table as it was before this
 * statement's own insert). A second role at another Outlet adds no member.
 */
function memberAddedStatement(attempt: Attempt, at: Date): { text: string; params: unknown[] } {
  const { record, actorUserId } = attempt;
  const params = [uuidv7(), actorUserId, record.organizationId, record.locationId, record.roleCode, record.createdByUserId];
  const added = conditionalAuditInsert(
    {
      action: 'member.added',
      actorUserId,
      organizationId: record.organizationId,
      locationId: record.locationId,
      targetId: actorUserId,
      correlationId: attempt.correlationId,
      details: { roleCode: record.roleCode, inviteId: record.inviteId, grantedBy: record.createdByUserId },
    },
    at,
    'EXISTS (SELECT 1 FROM granted) AND NOT EXISTS (SELECT 1 FROM role_assignments r WHERE r.user_id = $2::uuid AND r.organization_id = $3::uuid)',
    params.length + 1,
  );
  return {
    text: `WITH granted AS (
             INSERT INTO role_assignments (id, user_id, organization_id, location_id, role_code, granted_by_user_id)
             VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING RETURNING id
           ) ${added.text}`,
    params: [...params, ...added.params],
  };
}

/**
 * One transaction: the outcome row and `invite.cancelled`, with the reason when no admin's cancel asked for it. A void
 * invite (its grant refused for good) is cancelled by no one: its audit row has no actor, and its outcome row names the
 * invite's creator, whose lost role (or deleted organisation) decided it.
 */
export async function recordCancellation(deps: Deps, attempt: Attempt & { reason?: CancelReason }): Promise<RecordOutcome> {
  const at = new Date(deps.clock.now());
  const { reason } = attempt;
  const byRule = reason !== undefined && (VOID_CAUSES as readonly string[]).includes(reason);
  const outcome = byRule ? { ...attempt, actorUserId: attempt.record.createdByUserId } : attempt;
  const audit = inviteAudit('invite.cancelled', { ...outcome, actorUserId: byRule ? null : attempt.actorUserId }, at, reason);
  return finish(deps, 'invites.cancel.audit', attempt.record.inviteId, [outcomeStatement('cancelled', outcome, at), audit]);
}

/**
 * The statements that cancel one invite unless its outcome is written already (then nothing, not even the audit row),
 * for a batch of cancellations in one transaction that one finished invite must not roll back
 * (cancel-creator-invites.ts).
 */
export function cancellationUnlessFinished(attempt: Attempt & { reason: CancelReason }, at: Date): { text: string; params: unknown[] } {
  const outcome = outcomeStatement('cancelled', attempt, at);
  const audit = conditionalAuditInsert(
    auditEvent('invite.cancelled', attempt, attempt.reason),
    at,
    'EXISTS (SELECT 1 FROM decided)',
    outcome.params.length + 1,
  );
  return {
    text: `WITH decided AS (${outcome.text} ON CONFLICT (invite_id) DO NOTHING RETURNING invite_id) ${audit.text}`,
    params: [...outcome.params, ...audit.params],
  };
}

/** The outcomes already written for these invites (one query), by invite id. */
export async function readOutcomes(deps: Deps, inviteIds: string[], kind: PgCallKind = 'read'): Promise<Map<string, StoredOutcome>> {
  if (inviteIds.length === 0) return new Map();
  const rows = await dbCall(kind, 'invites.outcome.read', (signal) =>
    deps.db.query<{ invite_id: string; outcome: StoredOutcome['outcome']; actor_user_id: string }>(
      'SELECT invite_id, outcome, actor_user_id FROM invite_outcomes WHERE invite_id = ANY($1::uuid[])',
      [inviteIds],
      { signal },
    ),
  );
  return new Map(rows.map((row) => [row.invite_id, { outcome: row.outcome, actorUserId: row.actor_user_id }]));
}

/** The audit row of an invite's outcome: who (no one, for a void invite), in which tenant and outlet, with the role it carried. */
function inviteAudit(
  action: 'invite.accepted' | 'invite.cancelled',
  attempt: Omit<Attempt, 'actorUserId'> & { actorUserId: string | null },
  at: Date,
  reason?: CancelReason,
) {
  return auditStatement(auditEvent(action, attempt, reason), at);
}

function auditEvent(
  action: 'invite.accepted' | 'invite.cancelled',
  attempt: Omit<Attempt, 'actorUserId'> & { actorUserId: string | null },
  reason: CancelReason | undefined,
): AuditEvent {
  const { record, actorUserId, correlationId } = attempt;
  return {
    action,
    ...(actorUserId !== null ? auditActor(actorUserId, attempt.actorApiKeyId) : { actorUserId }),
    organizationId: record.organizationId,
    locationId: record.locationId,
    targetId: record.inviteId,
    correlationId,
    details: { roleCode: record.roleCode, ...(reason === undefined ? {} : { reason }) },
  };
}

function outcomeStatement(outcome: StoredOutcome['outcome'], attempt: Attempt, at: Date) {
  const { record, actorUserId, correlationId } = attempt;
  return {
    text: `INSERT INTO invite_outcomes (invite_id, organization_id, outcome, actor_user_id, location_id, role_code, decided_at, correlation_id)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    params: [record.inviteId, record.organizationId, outcome, actorUserId, record.locationId, record.roleCode, at, correlationId],
  };
}

async function finish(
  deps: Deps,
  operation: string,
  inviteId: string,
  statements: Array<{ text: string; params: unknown[] }>,
): Promise<RecordOutcome> {
  try {
    await dbCall('commit', operation, (signal) => deps.db.transaction(statements, { signal }));
    return { ok: true };
  } catch (error) {
    const state = sqlState(error);
    const constraint = (error as { constraint?: unknown }).constraint;
    if (state === '23505' && constraint === 'invite_outcomes_pkey') {
      // Who won: a read inside the caller's budget for compensations (lib/pg/call-policy.ts).
      const finished = (await readOutcomes(deps, [inviteId], 'compensation')).get(inviteId);
      // Written and gone again cannot happen (outcomes are never deleted); treat it as unavailable rather than guess.
      if (finished === undefined) throw error;
      return { ok: false, reason: 'finished', finished };
    }
    if (state === '23505' && constraint === 'users_email_key') return { ok: false, reason: 'email-belongs-to-another-user' };
    if (state === 'RS403') return { ok: false, reason: 'tenant-suspended' };
    if (state === 'RS410') {
      const detail = (error as { detail?: unknown }).detail;
      const cause = VOID_CAUSES.find((known) => known === detail);
      if (cause !== undefined) return { ok: false, reason: 'void', cause };
    }
    if (state === 'RS409') {
      const held = (error as { detail?: unknown }).detail;
      const heldRole = ROLE_CODES.find((role) => role === held);
      if (heldRole !== undefined) return { ok: false, reason: 'role-conflict', heldRole };
    }
    throw error;
  }
}
