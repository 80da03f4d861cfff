// The form iiko's auth takes a password in: SHA-1 of its UTF-8 bytes, lowercase hex (WebCrypto, so it runs on Workers).
import { bytesToHex } from '../../crypto/index.ts';

// SHA-1 is iiko's protocol, not our choice: this digest is a credential and is kept as secret as the password.
export async function passwordSha1Hex(password: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-1', new TextEncoder().encode(password));
  return bytesToHex(new Uint8Array(digest));
}
