// Signs sign-in's access tokens: with the current stored key (ES256 or EdDSA, lib/auth/signing-keys/), else the first
// configured signing key (EdDSA or RS256), else HS256 with the dev secret in dev/test.
import { importJWK, SignJWT, type JWTPayload } from 'jose';
import { uuidv7 } from 'uuidv7';
import type { AuthConfig, SigningKey } from '../../config/index.ts';
import type { Deps } from '../../deps.ts';
import type { SigningKeyRing } from '../signing-keys/key-ring.ts';
import { signingKeyRingFor } from '../signing-keys/ring-for-config.ts';

export interface AccessTokenSubject {
  userId: string;
  sessionId: string;
  /** The user's email as PostgreSQL holds it; vouched for (invites are accepted with a verified email only). */
  email: string;
  /** The session's organisation, carried as the `org` claim that binds the token to it (lib/auth/claims.ts). */
  organizationId?: string;
}

export interface SignedAccessToken {
  token: string;
  expiresInSeconds: number;
}

// importJWK is async and not free; a configured key lives as long as its config.
const importedKeys = new WeakMap<SigningKey, Promise<CryptoKey | Uint8Array>>();

function privateKey(key: SigningKey): Promise<CryptoKey | Uint8Array> {
  let imported = importedKeys.get(key);
  if (imported === undefined) {
    imported = importJWK(key.privateJwk, key.alg);
    importedKeys.set(key, imported);
    imported.catch(() => importedKeys.delete(key));
  }
  return imported;
}

/** True when this deployment can sign tokens of its own (sign-in answers 503 NOT_CONFIGURED otherwise). */
export function canSignTokens(auth: AuthConfig): boolean {
  return auth.stored !== undefined || auth.signing !== undefined || auth.hs256 !== undefined;
}

/** signAccessToken with this configuration's stored keys, when it has them (lib/auth/signing-keys/ring-for-config.ts). */
export function signAccessTokenFor(
  deps: Pick<Deps, 'config' | 'clock'>,
  subject: AccessTokenSubject,
  options: { nowMs: number; ttlSeconds: number; audience?: string },
): Promise<SignedAccessToken> {
  const storedKeys = signingKeyRingFor(deps);
  return signAccessToken(deps.config.auth, subject, storedKeys === undefined ? options : { ...options, storedKeys });
}

export async function signAccessToken(
  auth: AuthConfig,
  subject: AccessTokenSubject,
  /** `audience`: another app's, for an SSO handoff; otherwise this deployment's own. `storedKeys`: with `auth.stored`. */
  options: { nowMs: number; ttlSeconds: number; audience?: string; storedKeys?: SigningKeyRing },
): Promise<SignedAccessToken> {
  const iat = Math.floor(options.nowMs / 1000);
  const payload: JWTPayload = {
    sid: subject.sessionId,
    email: subject.email,
    email_verified: true,
    ...(subject.organizationId !== undefined ? { org: subject.organizationId } : {}),
  };
  const jwt = new SignJWT(payload)
    .setSubject(subject.userId)
    .setJti(uuidv7())
    .setIssuedAt(iat)
    .setExpirationTime(iat + options.ttlSeconds);
  let token: string;
  if (auth.stored !== undefined) {
    if (options.storedKeys === undefined) throw new Error('signAccessToken: stored signing keys need their ring (signAccessTokenFor)');
    const key = await options.storedKeys.signingKey();
    token = await jwt
      .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT' })
      .setIssuer(auth.stored.issuer)
      .setAudience(options.audience ?? auth.stored.audience)
      .sign(key.key);
  } else if (auth.signing !== undefined) {
    const key = auth.signing.keys[0];
    if (key === undefined) throw new Error('signAccessToken: no signing key');
    token = await jwt
      .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT' })
      .setIssuer(auth.signing.issuer)
      .setAudience(options.audience ?? auth.signing.audience)
      .sign(await privateKey(key));
  } else if (auth.hs256 !== undefined) {
    // The dev/test verifier checks AUTH_ISSUER / AUTH_AUDIENCE when set, so the token carries them then.
    if (auth.hs256.issuer !== undefined) jwt.setIssuer(auth.hs256.issuer);
    const audience = options.audience ?? auth.hs256.audience;
    if (audience !== undefined) jwt.setAudience(audience);
    token = await jwt.setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(new TextEncoder().encode(auth.hs256.secret));
  } else {
    throw new Error('signAccessToken: this deployment has no signing key');
  }
  return { token, expiresInSeconds: options.ttlSeconds };
}

/**
 * The public keys of sign-in's own tokens: the stored current, next and previous keys, or the configured ones (empty in
 * HS256 mode: a shared secret is never published).
 */
export async function publicJwks(deps: Pick<Deps, 'config' | 'clock'>): Promise<{ keys: Record<string, string>[] }> {
  const ring = signingKeyRingFor(deps);
  if (ring !== undefined) return ring.publishedJwks();
  return { keys: deps.config.auth.signing?.keys.map((key) => key.publicJwk) ?? [] };
}
