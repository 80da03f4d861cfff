// Refresh tokens: opaque, 256 random bits, shown once; PostgreSQL keeps only their SHA-256.
import { randomToken, sha256Hex } from '../../crypto/index.ts';

const PREFIX = 'rsr_';
const PATTERN = /^rsr_[A-Za-z0-9_-]{43}$/;

export interface IssuedRefreshToken {
  token: string;
  tokenHash: string;
}

export async function issueRefreshToken(): Promise<IssuedRefreshToken> {
  const token = PREFIX + randomToken(32);
  return { token, tokenHash: await sha256Hex(token) };
}

/** The stored hash of a presented token, or undefined for anything that is not one (never looked up). */
export async function refreshTokenHash(token: string): Promise<string | undefined> {
  return PATTERN.test(token) ? sha256Hex(token) : undefined;
}
