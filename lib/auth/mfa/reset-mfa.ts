// mfa.resetByOperator: an operator deletes a user's factor (pending or confirmed) and its recovery codes, for the user
// who lost the device and the codes. One statement deletes and writes the audit row naming the operator.
import { computedAuditInsert } from '../../pg/audit.ts';
import { dbCall } from '../../pg/unavailable.ts';
import type { Deps } from '../../deps.ts';

export type ResetOutcome = { ok: true; wasConfirmed: boolean; recoveryCodesLeft: number } | { ok: false; reason: 'not-found' };

/** The user's sessions stay as they are: the next sign-in asks for the password alone, and the user may enrol again. */
export async function resetMfaByOperator(
  deps: Deps,
  input: { userId: string; operatorId: string; correlationId: string },
): Promise<ResetOutcome> {
  const now = new Date(deps.clock.now());
  const audit = computedAuditInsert(
    {
      action: 'mfa.reset_by_operator',
      // Operators are not users of any tenant: the row names them by their configured id (as the tenant operations do).
      actorUserId: null,
      organizationId: null,
      locationId: null,
      targetId: input.userId,
      correlationId: input.correlationId,
      details: { operatorId: input.operatorId, factor: 'totp' },
    },
    now,
    {
      computed: { wasConfirmed: 'SELECT confirmed FROM removed', recoveryCodesLeft: 'SELECT n FROM codes' },
      when: 'EXISTS (SELECT 1 FROM removed)',
    },
    2,
  );
  const rows = await dbCall('commit', 'auth.mfa.resetByOperator', (signal) =>
    deps.db.query<{ confirmed: boolean; n: number }>(
      `WITH removed AS (
         DELETE FROM user_mfa WHERE user_id = $1 RETURNING confirmed_at IS NOT NULL AS confirmed
       ), codes AS (
         SELECT count(*)::int AS n FROM user_mfa_recovery_codes WHERE user_id = $1 AND used_at IS NULL
       ), audit AS (${audit.text})
       SELECT removed.confirmed, codes.n FROM removed, codes`,
      [input.userId, ...audit.params],
      { signal },
    ),
  );
  const row = rows[0];
  return row === undefined ? { ok: false, reason: 'not-found' } : { ok: true, wasConfirmed: row.confirmed, recoveryCodesLeft: row.n };
}
