// The one form an API key is stored and looked up in: an HMAC under the deployment's INDEX_HASH_KEY, never the key.
import { hmacSha256Hex } from '../../crypto/index.ts';

/** A label of its own, so this digest can never equal another use of the same key (recovery codes, hashed key segments). */
const LABEL = 'runstate api key v1\n';

/**
 * Keyed, not a plain SHA-256: a copy of the table alone does not let anyone test guessed keys offline, as for the
 * recovery codes (lib/auth/mfa/recovery-codes.ts). The key has about 190 random bits, so no stretching is needed.
 */
export function apiKeyHash(indexHashKey: string, key: string): Promise<string> {
  return hmacSha256Hex(indexHashKey, LABEL + key);
}
