// Mints HS256 bearer tokens the way a dev/test identity provider would, for tests and benchmarks.
import { SignJWT } from 'jose';
import { uuidv7 } from 'uuidv7';

export interface TokenClaims {
  userId: string;
  sessionId?: string;
  jti?: string;
  email?: string;
  emailVerified?: boolean;
  expiresInSeconds?: number;
}

export async function mintToken(secret: string, claims: TokenClaims): Promise<string> {
  const nowSeconds = Math.floor(Date.now() / 1000);
  const payload: Record<string, unknown> = { sid: claims.sessionId ?? uuidv7() };
  if (claims.email !== undefined) payload.email = claims.email;
  if (claims.emailVerified !== undefined) payload.email_verified = claims.emailVerified;
  return new SignJWT(payload)
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(claims.userId)
    .setJti(claims.jti ?? uuidv7())
    .setIssuedAt(nowSeconds)
    .setExpirationTime(nowSeconds + (claims.expiresInSeconds ?? 900))
    .sign(new TextEncoder().encode(secret));
}
