// mfa.replaceRecoveryCodes: after the step-up (password and a current TOTP code), ten new codes replace the old ones in
// one transaction with the audit row; the old ones stop working when it commits. The new ones are shown once.
import { auditStatement } from '../../pg/audit.ts';
import { dbCall, sqlState } from '../../pg/unavailable.ts';
import type { Deps } from '../../deps.ts';
import { generateRecoveryCodes, RECOVERY_CODE_COUNT, recoveryCodeHashes, replaceRecoveryCodesStatement } from './recovery-codes.ts';
import { stepUp, type StepUpRefusal } from './step-up.ts';

export type ReplaceCodesOutcome = { ok: true; recoveryCodes: string[] } | StepUpRefusal;

export async function replaceRecoveryCodes(
  deps: Deps,
  input: { userId: string; sessionId: string; password: string | undefined; code: string; correlationId: string },
): Promise<ReplaceCodesOutcome> {
  const proof = await stepUp(deps, { ...input, factorProof: { code: input.code } });
  if (!proof.ok) return proof;
  const now = new Date(deps.clock.now());
  const recoveryCodes = generateRecoveryCodes();
  const hashes = await recoveryCodeHashes(deps.config.indexHashKey, input.userId, recoveryCodes);
  const statements = [
    // Refuses (RS404) unless the factor the code was checked against is still the confirmed one.
    replaceRecoveryCodesStatement({ userId: input.userId, ciphertext: proof.factor!.ciphertext, hashes, now }),
    auditStatement(
      {
        action: 'mfa.recovery_codes_replaced',
        actorUserId: input.userId,
        organizationId: null,
        locationId: null,
        targetId: input.userId,
        correlationId: input.correlationId,
        details: { factor: 'totp', recoveryCodeCount: RECOVERY_CODE_COUNT },
      },
      now,
    ),
  ];
  try {
    await dbCall('commit', 'auth.mfa.replaceRecoveryCodes', (signal) => deps.db.transaction(statements, { signal }));
  } catch (error) {
    if (sqlState(error) === 'RS404') return { ok: false, reason: 'no-factor' };
    throw error;
  }
  return { ok: true, recoveryCodes };
}
