// Verifies a bearer JWT with jose: sign-in's own tokens (HS256 in dev/test, the stored keys by kid, or the configured keys) and an
// external identity provider's RS256 tokens against its JWKS; a token that may live longer than the denylist covers is refused.
import { createLocalJWKSet, createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify, type JWTVerifyGetKey } from 'jose';
import type { AuthConfig } from '../config/index.ts';
import { claimsSchema, principalFromClaims, type Principal } from './claims.ts';
import type { SigningKeyRing } from './signing-keys/key-ring.ts';
import { createVerifiedTokens } from './verified-tokens.ts';

export type VerifyToken = (token: string) => Promise<Principal | undefined>;

// One JWKS cache per URL per isolate, so keys are not re-fetched on every request.
const jwksByUrl = new Map<string, JWTVerifyGetKey>();

interface VerifierOptions {
  /** ACCESS_TOKEN_MAX_LIFETIME_SECONDS: a logout's denylist entry lives this long, so no token may live longer. */
  maxLifetimeSeconds: number;
  /**
   * Unix seconds: a token of this deployment's signing keys without the `org` claim is accepted only when it was issued
   * before then (unboundOwnTokenCutoff below). Default: when this isolate made its first verifier; tests pass their own.
   */
  unboundOwnTokensIssuedBefore?: number;
  /** The isolate's stored signing keys (lib/auth/signing-keys/ring-for-config.ts), with `auth.stored`. */
  storedKeys?: SigningKeyRing;
}

/**
 * When this isolate (Workers isolate, Lambda container, Node process) made its first verifier: always inside a request
 * or a handler's cold start, where the clock is real (a Workers isolate's global scope reads the epoch).
 */
let isolateStartSeconds: number | undefined;

/**
 * Every token this code signs with its own keys carries `org` (lib/auth/sessions/session-tokens.ts,
 * lib/auth/handoff/exchange-handoff.ts), so one without it was signed by an older build holding the same keys: before
 * the sessions were bound, or beside this one while a rollout (or a rollback) runs. Such a token is accepted only when
 * it was issued before this isolate started, and as an unbound token (the role check's rules alone, what that older
 * build grants it anyway): it lives at most maxLifetimeSeconds, and the refresh that follows binds its session. One
 * issued after the isolate started cannot come from a build older than it, unless that build still runs; so once every
 * isolate runs this code for maxLifetimeSeconds, no unbound token of the deployment's own keys acts anywhere, with no
 * operator step and no store read. A path of this code that forgot the claim would be refused by every isolate older
 * than its token, not quietly unbound. HS256 (dev/test) and an external provider's tokens are not subject to it
 * (docs/design/sign-in.md#the-org-claim).
 */
function unboundOwnTokenCutoff(options: VerifierOptions): number {
  if (options.unboundOwnTokensIssuedBefore !== undefined) return options.unboundOwnTokensIssuedBefore;
  isolateStartSeconds ??= Math.floor(Date.now() / 1000);
  return isolateStartSeconds;
}

type Verify = (token: string) => Promise<{ payload: unknown }>;

export function createTokenVerifier(auth: AuthConfig, options: VerifierOptions): VerifyToken {
  const required = ['sub', 'sid', 'jti', 'iat', 'exp'];
  const hs256 = auth.hs256;
  const signing = auth.signing;
  const external = auth.external;
  const ownCutoff = unboundOwnTokenCutoff(options);
  const verifyHs256: Verify | undefined =
    hs256 === undefined
      ? undefined
      : async (token) => {
          const verified = await jwtVerify(token, await hs256KeyOf(hs256.secret), {
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
  // Imported once per verifier: jose would import the raw secret again on every verification.
  let hs256Key: Promise<CryptoKey> | undefined;
  const hs256KeyOf = (secret: string) =>
    (hs256Key ??= crypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']));
  const stored = auth.stored;
  const storedKeys = options.storedKeys;
  // The key is found by kid in the isolate's memory; PostgreSQL is read only for a kid it does not know, at a bounded rate.
  const verifyStored: Verify | undefined =
    stored === undefined || storedKeys === undefined
      ? undefined
      : async (token) => {
          const { kid, alg } = decodeProtectedHeader(token);
          if (typeof kid !== 'string') throw new Error('no kid');
          const found = await storedKeys.verificationKey(kid);
          if (found === undefined || found.alg !== alg) throw new Error('no such key');
          return jwtVerify(token, found.key, {
            algorithms: [found.alg],
            requiredClaims: required,
            issuer: stored.issuer,
            audience: stored.audience,
          });
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
    if (verifyStored !== undefined && issuer === stored?.issuer) return verifyStored;
    if (verifyOwn !== undefined && issuer === signing?.issuer) return verifyOwn;
    return verifyExternal;
  };

  /**
   * Tokens of this deployment's own keys and of the HS256 secret are verified once per isolate and reused until they
   * expire (lib/auth/verified-tokens.ts): those keys are configuration and change only with a new isolate, or stored
   * keys that a rotation deletes only once every token they signed has expired (docs/design/signing-keys.md). An external
   * provider's tokens are verified every time, so a key its JWKS withdraws stops its tokens at once, as before.
   */
  const verified = verifyHs256 !== undefined || verifyOwn !== undefined || verifyStored !== undefined ? createVerifiedTokens() : undefined;

  return async (token) => {
    try {
      const known = verified?.get(token, Math.floor(Date.now() / 1000));
      if (known !== undefined) return known;
      const verify = pick(token);
      if (verify === undefined) return undefined;
      const { payload } = await verify(token);
      const claims = claimsSchema.safeParse(payload);
      if (!claims.success) return undefined;
      // The denylist entry of a revoked session lives maxLifetimeSeconds: a token that lives longer, or one that
      // claims a future iat to stretch its exp, would outlive it.
      const { exp, iat } = claims.data;
      if (exp - iat > options.maxLifetimeSeconds || exp - Math.floor(Date.now() / 1000) > options.maxLifetimeSeconds) return undefined;
      // This deployment's own keys: bound, or signed by an older build before this isolate started (unboundOwnTokenCutoff).
      if ((verify === verifyOwn || verify === verifyStored) && claims.data.org === undefined && iat >= ownCutoff) return undefined;
      const principal = principalFromClaims(claims.data);
      // What the rules above decided holds until exp: they only grow more lenient as time passes (exp - now shrinks).
      if (verify !== verifyExternal) verified?.set(token, principal);
      return principal;
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
