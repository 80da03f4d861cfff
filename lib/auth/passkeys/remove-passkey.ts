// passkeys.remove: after the step-up, one statement deletes the user's passkey and writes passkey.removed beside it.
import { conditionalAuditInsert } from '../../pg/audit.ts';
import { dbCall } from '../../pg/unavailable.ts';
import type { Deps } from '../../deps.ts';
import type { StepUpRefusal } from '../mfa/step-up.ts';
import { passkeyStepUp, type PasskeyStepUpInput } from './step-up.ts';

/** 'not-found': no such passkey of this user (another's answers the same). */
export type RemovePasskeyOutcome = { ok: true } | { ok: false; reason: 'not-found' } | StepUpRefusal;

export async function removePasskey(deps: Deps, input: PasskeyStepUpInput & { passkeyId: string }): Promise<RemovePasskeyOutcome> {
  const proof = await passkeyStepUp(deps, input);
  if (!proof.ok) return proof;
  const now = new Date(deps.clock.now());
  const audit = conditionalAuditInsert(
    {
      action: 'passkey.removed',
      actorUserId: input.userId,
      organizationId: null,
      locationId: null,
      targetId: input.userId,
      correlationId: input.correlationId,
      details: { passkeyId: input.passkeyId },
    },
    now,
    'EXISTS (SELECT 1 FROM removed)',
    3,
  );
  const rows = await dbCall('commit', 'auth.passkeys.remove', (signal) =>
    deps.db.query<{ removed: number }>(
      `WITH removed AS (DELETE FROM passkeys WHERE id = $1 AND user_id = $2 RETURNING id), audit AS (${audit.text})
       SELECT count(*)::int AS removed FROM removed`,
      [input.passkeyId, input.userId, ...audit.params],
      { signal },
    ),
  );
  return rows[0]?.removed === 1 ? { ok: true } : { ok: false, reason: 'not-found' };
}
