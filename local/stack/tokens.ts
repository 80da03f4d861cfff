// Mints HS256 bearer tokens the way a dev/test identity provider would, for the demo seed, tests and benchmarks.
import { SignJWT } from 'jose';
import { uuidv7 } from 'uuidv7';

export interface TokenClaims {
  userId: string;
  sessionId?: string;
  jti?: string;
  email?: string;
  /** With an `email`: the dev identity provider vouches for it (`true`) unless told otherwise; `'omit'` leaves the claim out. */
  emailVerified?: boolean | 'omit';
  expiresInSeconds?: number;
  /**
   * The organisation the token's session is bound to (its `org` claim), as this deployment's sign-in issues them; absent:
   * an unbound token, as an external identity provider's. Admin routes admit a bound token only while its session row
   * is bound there too.
   */
  organizationId?: string;
  /** Set only when the deployment checks AUTH_ISSUER / AUTH_AUDIENCE on HS256 tokens too. */
  issuer?: string;
  audience?: string;
}

export async function mintToken(secret: string, claims: TokenClaims): Promise<string> {
  const nowSeconds = Math.floor(Date.now() / 1000);
  const payload: Record<string, unknown> = { sid: claims.sessionId ?? uuidv7() };
  if (claims.email !== undefined) payload.email = claims.email;
  if (claims.organizationId !== undefined) payload.org = claims.organizationId;
  const emailVerified = claims.emailVerified ?? (claims.email !== undefined ? true : 'omit');
  if (emailVerified !== 'omit') payload.email_verified = emailVerified;
  const jwt = new SignJWT(payload)
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(claims.userId)
    .setJti(claims.jti ?? uuidv7())
    .setIssuedAt(nowSeconds)
    .setExpirationTime(nowSeconds + (claims.expiresInSeconds ?? 900));
  if (claims.issuer !== undefined) jwt.setIssuer(claims.issuer);
  if (claims.audience !== undefined) jwt.setAudience(claims.audience);
  return jwt.sign(new TextEncoder().encode(secret));
}
