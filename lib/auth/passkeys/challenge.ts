// A passkey ceremony's challenge: 32 random bytes, base64url, the value the authenticator signs over and the browser
// hands back in clientDataJSON. Redis keys it by its SHA-256 (registry row passkeyChallenge), so a copy of the keyspace
// holds nothing a browser could be handed; only a value of exactly this shape is hashed and looked up.
import { randomToken, sha256Hex } from '../../crypto/index.ts';
import type { Keyspace } from '../../keys/index.ts';

const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

export function newPasskeyChallenge(): string {
  return randomToken(32);
}

/** The key of a challenge, or undefined for anything that is not one of ours (never looked up). */
export async function passkeyChallengeKey(keys: Keyspace, challenge: string): Promise<string | undefined> {
  if (!CHALLENGE.test(challenge)) return undefined;
  return keys.passkeyChallenge(await sha256Hex(challenge));
}
