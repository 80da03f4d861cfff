// mfa.remove: the user's own removal of their factor, after the step-up (password and a code or a recovery code). One
// statement deletes the factor the proof was checked against, its recovery codes (the foreign key) and writes the audit row.
import { computedAuditInsert } from '../../pg/audit.ts';
import { dbCall } from '../../pg/unavailable.ts';
import type { Deps } from '../../deps.ts';
import { stepUp, type FactorProof, type StepUpRefusal } from './step-up.ts';

export type RemoveOutcome = { ok: true } | StepUpRefusal;

/**
 * The DELETE names the ciphertext the code was checked against: a factor re-enrolled in between (after another
 * removal) is not the one proven, and nothing is deleted ('no-factor').
 */
export async function removeMfa(
  deps: Deps,
  input: { userId: string; sessionId: string; password: string | undefined; factorProof: FactorProof; correlationId: string },
): Promise<RemoveOutcome> {
  const proof = await stepUp(deps, input);
  if (!proof.ok) return proof;
  const now = new Date(deps.clock.now());
  const audit = computedAuditInsert(
    {
      action: 'mfa.removed',
      actorUserId: input.userId,
      organizationId: null,
      locationId: null,
      targetId: input.userId,
      correlationId: input.correlationId,
      details: { factor: 'totp', proof: 'code' in input.factorProof ? 'totp' : 'recovery-code' },
    },
    now,
    { computed: { recoveryCodesLeft: 'SELECT n FROM codes' }, when: 'EXISTS (SELECT 1 FROM removed)' },
    3,
  );
  // The codes CTE reads the snapshot before the delete (and its cascade): how many unused codes went with the factor.
  const rows = await dbCall('commit', 'auth.mfa.remove', (signal) =>
    deps.db.query<{ removed: number }>(
      `WITH removed AS (
         DELETE FROM user_mfa WHERE user_id = $1 AND secret_ciphertext = $2 AND confirmed_at IS NOT NULL RETURNING user_id
       ), codes AS (
         SELECT count(*)::int AS n FROM user_mfa_recovery_codes WHERE user_id = $1 AND used_at IS NULL
       ), audit AS (${audit.text})
       SELECT count(*)::int AS removed FROM removed`,
      [input.userId, proof.factor!.ciphertext, ...audit.params],
      { signal },
    ),
  );
  return rows[0]?.removed === 1 ? { ok: true } : { ok: false, reason: 'no-factor' };
}
