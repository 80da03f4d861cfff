// The signing_keys rows (migrations/0029_signing_keys.sql) in one read: every published key, validated, its private half still sealed.
import * as z from 'zod';
import { STORED_SIGNING_ALGORITHMS, type StoredSigningAlgorithm } from '../../config/signing-keys.ts';
import type { SealedSecret } from '../../crypto/secret-box.ts';
import type { CallOptions, Db } from '../../pg/db.ts';

export type { StoredSigningAlgorithm };
export type SigningKeyState = 'next' | 'current' | 'previous';

const base64url = z.string().regex(/^[A-Za-z0-9_-]+$/, 'base64url');

/** The public members of a key, as the table keeps them: a P-256 point (ES256) or an Ed25519 one (EdDSA). */
export const publicJwkSchema = z.union([
  z.strictObject({ kty: z.literal('EC'), crv: z.literal('P-256'), x: base64url, y: base64url }),
  z.strictObject({ kty: z.literal('OKP'), crv: z.literal('Ed25519'), x: base64url }),
]);
export type PublicJwk = z.infer<typeof publicJwkSchema>;

export const signingKidSchema = z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, 'kid: letters, digits, ".", "_" or "-", at most 64');

const rowSchema = z.object({
  kid: signingKidSchema,
  alg: z.enum(STORED_SIGNING_ALGORITHMS),
  state: z.enum(['next', 'current', 'previous']),
  public_jwk: publicJwkSchema,
  sealed_key_id: z.string().min(1),
  sealed_private_key: z.string().min(1),
  created_at: z.coerce.date(),
  activated_at: z.coerce.date().nullable(),
});

export interface StoredSigningKey {
  kid: string;
  alg: StoredSigningAlgorithm;
  state: SigningKeyState;
  publicJwk: PublicJwk;
  /** The private JWK, sealed with SECRETS_KEYS and bound to kid and createdAtMs (lib/crypto/secret-box.ts). */
  sealed: SealedSecret;
  createdAtMs: number;
  /** When it became current; null while it is next. */
  activatedAtMs: number | null;
}

/** What /.well-known/jwks.json publishes of a key: public members only. */
export type PublishedJwk = PublicJwk & { kid: string; alg: StoredSigningAlgorithm; use: 'sig' };

export function publishedJwk(key: Pick<StoredSigningKey, 'kid' | 'alg' | 'publicJwk'>): PublishedJwk {
  return { ...key.publicJwk, kid: key.kid, alg: key.alg, use: 'sig' };
}

/** One statement: at most three rows. A row that does not parse throws (zod names the field, never its value). */
export async function readSigningKeys(db: Db, options: CallOptions = {}): Promise<StoredSigningKey[]> {
  const rows = await db.query(
    'SELECT kid, alg, state, public_jwk, sealed_key_id, sealed_private_key, created_at, activated_at FROM signing_keys',
    [],
    options,
  );
  return rows.map((raw) => {
    const row = rowSchema.parse(raw);
    return {
      kid: row.kid,
      alg: row.alg,
      state: row.state,
      publicJwk: row.public_jwk,
      sealed: { keyId: row.sealed_key_id, ciphertext: row.sealed_private_key },
      createdAtMs: row.created_at.getTime(),
      activatedAtMs: row.activated_at === null ? null : row.activated_at.getTime(),
    };
  });
}
