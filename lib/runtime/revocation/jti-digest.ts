// The SHA-256 of a token's jti, which names its denylist entry and its revoked_tokens row, remembered per isolate.
import { sha256Hex } from '../../crypto/index.ts';

/**
 * The revocation check digests the jti on every authenticated request, and a client presents the same access token
 * on each of its requests until it expires; on Node each digest is a WebCrypto job on libuv's pool
 * (bench/README.md#cpu-per-request). SHA-256 is deterministic, so a remembered digest is the one it would compute
 * again. Bounded: the oldest jti goes first.
 */
const REMEMBERED = 4_096;
const remembered = new Map<string, string>();

/** Lowercase hex SHA-256 of the jti, as `sha256Hex` gives it. */
export async function jtiDigest(jti: string): Promise<string> {
  const known = remembered.get(jti);
  if (known !== undefined) return known;
  const digest = await sha256Hex(jti);
  if (remembered.size >= REMEMBERED) remembered.delete(remembered.keys().next().value as string);
  remembered.set(jti, digest);
  return digest;
}
