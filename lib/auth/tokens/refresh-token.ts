// Refresh tokens: opaque, 256 bits, shown once; PostgreSQL keeps only their SHA-256. A session's first token is random;
// each later one is derived from the token it replaces under a server key, so a retried refresh recomputes the same one.
import { base64urlEncode, hmacSha256, randomToken, sha256Hex } from '../../crypto/index.ts';

const PREFIX = 'rsr_';
const PATTERN = /^rsr_[A-Za-z0-9_-]{43}$/;

// A purpose of its own under INDEX_HASH_KEY, so that
// no value derived under that key for another purpose ever equals a successor.
const SUCCESSOR_LABEL = 'runstate/auth/refresh-successor/v1\n';

export interface IssuedRefreshToken {
  token: string;
  tokenHash: string;
}

/** A session's first refresh token: 256 random bits. */
export async function issueRefreshToken(): Promise<IssuedRefreshToken> {
  const token = PREFIX + randomToken(32);
  return { token, tokenHash: await sha256Hex(token) };
}

/**
 * The token that replaces `presented`: HMAC-SHA256(key, label ‖ presented), 256 bits as unpredictable as the presented
 * token to anyone without the key. The same presented token always gives the same successor, so a retry within the grace
 * is answered with the token the lost reply carried, and only its hash is ever stored
 * (docs/design/sign-in.md#a-retried-refresh).
 */
export async function successorRefreshToken(key: string, presented: string): Promise<IssuedRefreshToken> {
  const token = PREFIX + base64urlEncode(await hmacSha256(key, SUCCESSOR_LABEL + presented));
  return { token, tokenHash: await sha256Hex(token) };
}

/** The stored hash of a presented token, or undefined for anything that is not one (never looked up). */
export async function refreshTokenHash(token: string): Promise<string | undefined> {
  return PATTERN.test(token) ? sha256Hex(token) : undefined;
}
