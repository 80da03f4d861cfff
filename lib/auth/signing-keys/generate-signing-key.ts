// Makes a fresh signing key pair (WebCrypto through jose) and seals its private JWK with SECRETS_KEYS before it goes anywhere.
import { exportJWK, generateKeyPair } from 'jose';
import type { SecretKey } from '../../config/secrets-keys.ts';
import { bytesToHex } from '../../crypto/hex.ts';
import { randomBytes } from '../../crypto/random.ts';
import { sealSecret, type SealedSecret, type SigningKeyBinding } from '../../crypto/secret-box.ts';
import { publicJwkSchema, type PublicJwk, type StoredSigningAlgorithm } from './stored-keys.ts';

export interface GeneratedSigningKey {
  kid: string;
  alg: StoredSigningAlgorithm;
  publicJwk: PublicJwk;
  sealed: SealedSecret;
  createdAtMs: number;
}

export function signingKeyBinding(kid: string, createdAtMs: number): SigningKeyBinding {
  return { purpose: 'signing-key', kid, createdAtMs };
}

export async function generateSigningKey(
  secretsKeys: readonly SecretKey[],
  alg: StoredSigningAlgorithm,
  nowMs: number,
): Promise<GeneratedSigningKey> {
  const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true });
  // The date says when it was made at a glance; the random part keeps two keys of one day apart.
  const kid = `${alg.toLowerCase()}-${new Date(nowMs).toISOString().slice(0, 10).replaceAll('-', '')}-${bytesToHex(randomBytes(6))}`;
  const publicJwk = publicJwkSchema.parse(pickPublic(await exportJWK(publicKey)));
  const sealed = await sealSecret(secretsKeys, JSON.stringify(await exportJWK(privateKey)), signingKeyBinding(kid, nowMs));
  return { kid, alg, publicJwk, sealed, createdAtMs: nowMs };
}

function pickPublic(jwk: Record<string, unknown>): Record<string, unknown> {
  const { kty, crv, x, y } = jwk;
  return y === undefined ? { kty, crv, x } : { kty, crv, x, y };
}
