// A user's TOTP factor as PostgreSQL keeps it (user_mfa): the sealed secret, read and opened in one place.
import { base32Decode, openSecret, type TotpSecretBinding } from '../../crypto/index.ts';
import { dbCall } from '../../pg/unavailable.ts';
import type { Deps } from '../../deps.ts';

export const totpBinding = (userId: string, enrolledAtMs: number): TotpSecretBinding => ({
  purpose: 'totp-secret',
  userId,
  enrolledAtMs,
});

export interface TotpFactor {
  /** The raw secret bytes (never logged, never returned but once at enrolment). */
  secret: Uint8Array;
  /** The ciphertext as stored: the confirmation names the row it checked the code against by it. */
  ciphertext: string;
  confirmed: boolean;
}

interface FactorRow {
  secret_ciphertext: string;
  secret_key_id: string;
  enrolled_at: Date;
  confirmed_at: Date | null;
}

/** The user's factor (pending or confirmed), opened; undefined when there is none. One query. */
export async function readTotpFactor(deps: Deps, userId: string): Promise<TotpFactor | undefined> {
  const rows = await dbCall('read', 'auth.mfa.factor', (signal) =>
    deps.db.query<FactorRow>(
      'SELECT secret_ciphertext, secret_key_id, enrolled_at, confirmed_at FROM user_mfa WHERE user_id = $1',
      [userId],
      {
        signal,
      },
    ),
  );
  const row = rows[0];
  if (row === undefined) return undefined;
  // A secret that does not open (a key removed from SECRETS_KEYS, a swapped row) throws: an operator's problem, a 500.
  const base32 = await openSecret(
    deps.config.secretsKeys,
    { keyId: row.secret_key_id, ciphertext: row.secret_ciphertext },
    totpBinding(userId, new Date(row.enrolled_at).getTime()),
  );
  return { secret: base32Decode(base32), ciphertext: row.secret_ciphertext, confirmed: row.confirmed_at !== null };
}
