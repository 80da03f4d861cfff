// MFA recovery codes: ten random codes of 50 bits each, shown once, kept only as keyed hashes (user_mfa_recovery_codes).
import { base32Encode, hmacSha256Hex, randomBytes } from '../../crypto/index.ts';

/** Codes handed out per factor (and per replacement). */
export const RECOVERY_CODE_COUNT = 10;
/** Base32 characters per code: 10 × 5 bits = 50 bits, far beyond what the per-user failure counter lets anyone guess. */
const CODE_CHARACTERS = 10;
/** 7 random bytes give 56 bits, of which the first 50 (10 base32 characters) are kept. */
const CODE_BYTES = 7;
const NORMALIZED = /^[a-z2-7]{10}$/;
// A purpose of its own under INDEX_HASH_KEY (lib/auth/tokens/refresh-token.ts does the same): no other keyed digest
// ever equals a code's, and the user id in the input makes one user's code useless for another's row.
const HASH_LABEL = 'runstate/auth/mfa-recovery-code/v1\n';

/** `xxxxx-xxxxx`, lower-case RFC 4648 base32: no 0/1/8/9, so nothing to confuse with O, I, l or B. */
export function generateRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const text = base32Encode(randomBytes(CODE_BYTES)).slice(0, CODE_CHARACTERS).toLowerCase();
    return `${text.slice(0, 5)}-${text.slice(5)}`;
  });
}

/** The one spelling a code is hashed in (case, spaces and hyphens do not matter); undefined for anything not a code. */
export function normalizeRecoveryCode(input: string): string | undefined {
  const normalized = input.toLowerCase().replace(/[\s-]/g, '');
  return NORMALIZED.test(normalized) ? normalized : undefined;
}

/** HMAC-SHA256(INDEX_HASH_KEY, label ‖ user ‖ code) as hex: what PostgreSQL keeps and looks a presented code up by. */
export function recoveryCodeHash(indexHashKey: string, userId: string, normalizedCode: string): Promise<string> {
  return hmacSha256Hex(indexHashKey, `${HASH_LABEL}${userId}\n${normalizedCode}`);
}

/** The hashes of freshly generated codes, for the statement that stores them. */
export function recoveryCodeHashes(indexHashKey: string, userId: string, codes: readonly string[]): Promise<string[]> {
  return Promise.all(codes.map((code) => recoveryCodeHash(indexHashKey, userId, normalizeRecoveryCode(code)!)));
}

/** The statement that replaces a confirmed factor's codes (migrations/0014_mfa_recovery.sql), for a transaction. */
export function replaceRecoveryCodesStatement(input: { userId: string; ciphertext: string; hashes: string[]; now: Date }) {
  return {
    text: 'SELECT mfa_replace_recovery_codes($1, $2, $3::text[], $4)',
    params: [input.userId, input.ciphertext, input.hashes, input.now.toISOString()],
  };
}
