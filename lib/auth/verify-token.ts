// Verifies a bearer JWT with jose: sign-in's own tokens (HS256 in dev/test, or the configured signing keys) and an
// external identity provider's RS256 tokens against its JWKS; a token that may live longer than the denylist covers is refused.
import { createLocalJWKSet, createRemoteJWKSet, decodeJwt, jwtVerify, type JWTVerifyGetKey } from 'jose';
import type { AuthConfig } from '../config/index.ts';
import { claimsSchema, principalFromClaims, type Principal } from './claims.ts';

export type VerifyToken = (token: string) => Promise<Principal | undefined>;

// One JWKS cache per URL per isolate, so keys are not re-fetched on every request.
const jwksByUrl = new Map<string, JWTVerifyGetKey>();

interface VerifierOptions {
  /** ACCESS_TOKEN_MAX_LIFETIME_SECONDS: a logout's denylist entry lives this long, so no token may live longer. */
  maxLifetimeSeconds: number;
}

type Verify = (token: string) => Promise<{ payload: unknown }>;

export function createTokenVerifier(auth: AuthConfig, options: VerifierOptions): VerifyToken {
  const required = ['sub', 'sid', 'jti', 'iat', 'exp'];
  const hs256 = auth.hs256;
  const signing = auth.signing;
  const external = auth.external;
  const verifyHs256: Verify | undefined =
    hs256 === undefined
      ? undefined
      : async (token) => {
          const verified = await jwtVerify(token, new TextEncoder().encode(hs256.secret), {
            algorithms: ['HS256'],
            requiredClaims: required,
            ...(hs256.issuer !== undefined ? { issuer: hs256.issuer } : {}),
            ...(hs256.audience !== undefined ? { audience: hs256.audience } : {}),
          });
          // Without AUTH_AUDIENCE this deployment's own tokens carry no `aud` (lib/auth/tokens/access-token.ts); one that
          // does was made out to another app (an SSO handoff's), and is that app's alone, as with the other verifiers.
          if (hs256.audience === undefined && verified.payload.aud !== undefined) throw new Error('a token for another audience');
          return verified;
        };
  const ownKeys = signing === undefined ? undefined : createLocalJWKSet({ keys: signing.keys.map((key) => key.publicJwk) });
  const verifyOwn: Verify | undefined =
    signing === undefined || ownKeys === undefined
      ? undefined
      : (token) =>
          jwtVerify(token, ownKeys, {
            algorithms: [...new Set(signing.keys.map((key) => key.alg))],
            requiredClaims: required,
            issuer: signing.issuer,
            audience: signing.audience,
          });
  const verifyExternal: Verify | undefined =
    external === undefined
      ? undefined
      : (token) =>
          jwtVerify(token, jwks(external.jwksUrl), {
            algorithms: ['RS256'],
            requiredClaims: required,
            issuer: external.issuer,
            audience: external.audience,
          });

  // The unverified `iss` only picks which keys to try; the chosen verifier checks it again with the signature.
  const pick = (token: string): Verify | undefined => {
    if (verifyHs256 !== undefined) return verifyHs256;
    const issuer = decodeJwt(token).iss;
    if (verifyOwn !== undefined && issuer === signing?.issuer) return verifyOwn;
    return verifyExternal;
  };

  return async (token) => {
    try {
      const verify = pick(token);
      if (verify === undefined) return undefined;
      const { payload } = await verify(token);
      const claims = claimsSchema.safeParse(payload);
      if (!claims.success) return undefined;
      // The denylist entry of a revoked session lives maxLifetimeSeconds: a token that lives longer, or one that
      // claims a future iat to stretch its exp, would outlive it.
      const { exp, iat } = claims.data;
      if (exp - iat > options.maxLifetimeSeconds || exp - Math.floor(Date.now() / 1000) > options.maxLifetimeSeconds) return undefined;
      return principalFromClaims(claims.data);
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
