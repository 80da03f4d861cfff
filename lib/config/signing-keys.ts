// Parses AUTH_SIGNING_KEYS: a JSON array of private JWKs (Ed25519 for EdDSA, RSA for RS256), each named by a kid.
import * as z from 'zod';

// Built on the first parse (z.lazy), not at import: the configuration module is evaluated by every cold start.
const base64url = () => z.string().regex(/^[A-Za-z0-9_-]+$/, 'base64url');
const kid = () => z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, 'letters, digits, ".", "_" or "-", at most 64');

const ed25519Jwk = z.lazy(() =>
  z.object({
    kty: z.literal('OKP'),
    crv: z.literal('Ed25519'),
    kid: kid(),
    alg: z.literal('EdDSA').optional(),
    x: base64url(),
    d: base64url(),
  }),
);

const rsaJwk = z.lazy(() =>
  z.object({
    kty: z.literal('RSA'),
    kid: kid(),
    alg: z.literal('RS256').optional(),
    // 2048 bits are 342 base64url characters; anything shorter is a toy key.
    n: base64url().min(342, 'an RSA modulus of at least 2048 bits'),
    e: base64url(),
    d: base64url(),
    p: base64url(),
    q: base64url(),
    dp: base64url(),
    dq: base64url(),
    qi: base64url(),
  }),
);

export type SigningAlgorithm = 'EdDSA' | 'RS256';

/** The algorithms of the keys kept in PostgreSQL (ACCESS_TOKEN_SIGNING, lib/auth/signing-keys/). */
export const STORED_SIGNING_ALGORITHMS = ['ES256', 'EdDSA'] as const;
export type StoredSigningAlgorithm = (typeof STORED_SIGNING_ALGORITHMS)[number];

/** A private signing key as configured, with the algorithm its key type implies. */
export interface SigningKey {
  kid: string;
  alg: SigningAlgorithm;
  /** The private JWK as given (never logged, never published). */
  privateJwk: Record<string, string>;
  /** Only the public members, for /.well-known/jwks.json. */
  publicJwk: Record<string, string>;
}

/** Throws an Error whose message names the entry and rule, never a key's value. */
export function parseSigningKeys(value: string): SigningKey[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new Error('not valid JSON (expected an array of private JWKs)');
  }
  if (!Array.isArray(parsed) || parsed.length === 0) throw new Error('expected a non-empty JSON array of private JWKs');
  const keys = parsed.map((entry: unknown, index): SigningKey => {
    const kty = (entry as { kty?: unknown } | null)?.kty;
    const schema = kty === 'RSA' ? rsaJwk : ed25519Jwk;
    const result = schema.safeParse(entry);
    if (!result.success) {
      const fields = [...new Set(result.error.issues.map((issue) => issue.path.join('.') || 'key'))].join(', ');
      throw new Error(`entry ${index + 1}: not a private Ed25519 (OKP) or RSA JWK (check ${fields})`);
    }
    const jwk = result.data;
    if (jwk.kty === 'RSA') {
      return {
        kid: jwk.kid,
        alg: 'RS256',
        privateJwk: { ...jwk, alg: 'RS256' },
        publicJwk: { kty: 'RSA', kid: jwk.kid, alg: 'RS256', use: 'sig', n: jwk.n, e: jwk.e },
      };
    }
    return {
      kid: jwk.kid,
      alg: 'EdDSA',
      privateJwk: { ...jwk, alg: 'EdDSA' },
      publicJwk: { kty: 'OKP', crv: 'Ed25519', kid: jwk.kid, alg: 'EdDSA', use: 'sig', x: jwk.x },
    };
  });
  if (new Set(keys.map((key) => key.kid)).size !== keys.length) throw new Error('key ids (kid) must be unique');
  return keys;
}
