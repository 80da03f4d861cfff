// Verifies a bearer JWT with jose: HS256 with a shared secret in dev/test, RS256 against a JWKS in staging/prod.
import { createRemoteJWKSet, jwtVerify, type JWTVerifyGetKey } from 'jose';
import type { AuthConfig } from '../config/index.ts';
import { claimsSchema, principalFromClaims, type Principal } from './claims.ts';

export type VerifyToken = (token: string) => Promise<Principal | undefined>;

// One JWKS cache per URL per isolate, so keys are not re-fetched on every request.
const jwksByUrl = new Map<string, JWTVerifyGetKey>();

export function createTokenVerifier(auth: AuthConfig): VerifyToken {
  const options = {
    algorithms: [auth.kind === 'hs256' ? 'HS256' : 'RS256'],
    requiredClaims: ['sub', 'sid', 'jti', 'iat', 'exp'],
    ...(auth.issuer !== undefined ? { issuer: auth.issuer } : {}),
    ...(auth.audience !== undefined ? { audience: auth.audience } : {}),
  };
  const verify =
    auth.kind === 'hs256'
      ? (token: string) => jwtVerify(token, new TextEncoder().encode(auth.secret), options)
      : (token: string) => jwtVerify(token, jwks(auth.jwksUrl), options);
  return async (token) => {
    try {
      const { payload } = await verify(token);
      const claims = claimsSchema.safeParse(payload);
      return claims.success ? principalFromClaims(claims.data) : undefined;
    } catch {
      return undefined;
    }
  };
}

function jwks(url: string): JWTVerifyGetKey {
  let getKey = jwksByUrl.get(url);
  if (getKey === undefined) {
    getKey = createRemoteJWKSet(new URL(url));
    jwksByUrl.set(url, getKey);
  }
  return getKey;
}
