// mfa.confirm: the first code proves the user's app holds the pending secret; its step is burned, then the factor counts
// and its ten recovery codes are stored (as hashes) in the same transaction; the codes themselves are shown once.
import { matchTotp } from '../../crypto/index.ts';
import { auditStatement } from '../../pg/audit.ts';
import type { Statement } from '../../pg/db.ts';
import { dbCall, sqlState } from '../../pg/unavailable.ts';
import { mfa, TOTP_DRIFT_STEPS } from './index.ts';
import type { Deps } from '../../deps.ts';
import { readTotpFactor } from './factor.ts';
import { generateRecoveryCodes, RECOVERY_CODE_COUNT, recoveryCodeHashes, replaceRecoveryCodesStatement } from './recovery-codes.ts';

export type ConfirmOutcome =
  { ok: true; recoveryCodes: string[] } | { ok: false; reason: 'no-pending' | 'already-enrolled' | 'wrong-code' };

/**
 * The code's step is burned in the replay guard before PostgreSQL confirms (SET NX: of two confirmations with one code
 * only one goes on), so the code that confirmed cannot sign in a minute later. Redis down: 503 and nothing confirmed.
 * PostgreSQL down after the burn: 503; the next code confirms.
 */
export async function confirmMfa(deps: Deps, input: { userId: string; code: string; correlationId: string }): Promise<ConfirmOutcome> {
  const factor = await readTotpFactor(deps, input.userId);
  if (factor === undefined) return { ok: false, reason: 'no-pending' };
  if (factor.confirmed) return { ok: false, reason: 'already-enrolled' };
  const nowMs = deps.clock.now();
  const step = await matchTotp(factor.secret, input.code, nowMs, { drift: TOTP_DRIFT_STEPS });
  if (step === undefined) return { ok: false, reason: 'wrong-code' };
  if (!(await mfa.burnTotpStep(deps, { userId: input.userId, step }))) return { ok: false, reason: 'wrong-code' };
  const { statements, recoveryCodes } = await confirmStatements(deps, {
    userId: input.userId,
    ciphertext: factor.ciphertext,
    correlationId: input.correlationId,
    now: new Date(nowMs),
  });
  try {
    await dbCall('commit', 'auth.mfa.confirm', (signal) => deps.db.transaction(statements, { signal }));
  } catch (error) {
    if (sqlState(error) === 'RS409') return { ok: false, reason: 'already-enrolled' };
    // Re-enrolled since the read: the code was for a secret that is gone.
    if (sqlState(error) === 'RS404') return { ok: false, reason: 'wrong-code' };
    throw error;
  }
  return { ok: true, recoveryCodes };
}

/**
 * The confirmation's writes, to run in one transaction: the factor confirmed (the ciphertext the code was checked
 * against), its ten recovery codes stored as hashes, `mfa.confirmed` audited. Also the first statements of the session
 * an enrolment token opens (lib/auth/sign-in-policy/confirm-totp.ts): a factor confirmed there and its session commit
 * together or not at all.
 */
export async function confirmStatements(
  deps: Deps,
  input: { userId: string; ciphertext: string; correlationId: string; now: Date },
): Promise<{ statements: Statement[]; recoveryCodes: string[] }> {
  const recoveryCodes = generateRecoveryCodes();
  const hashes = await recoveryCodeHashes(deps.config.indexHashKey, input.userId, recoveryCodes);
  const statements = [
    { text: 'SELECT mfa_confirm($1, $2, $3)', params: [input.userId, input.ciphertext, input.now.toISOString()] },
    replaceRecoveryCodesStatement({ userId: input.userId, ciphertext: input.ciphertext, hashes, now: input.now }),
    auditStatement(
      {
        action: 'mfa.confirmed',
        actorUserId: input.userId,
        organizationId: null,
        locationId: null,
        targetId: input.userId,
        correlationId: input.correlationId,
        details: { factor: 'totp', recoveryCodeCount: RECOVERY_CODE_COUNT },
      },
      input.now,
    ),
  ];
  return { statements, recoveryCodes };
}
