// HMAC-SHA256 with WebCrypto, for keyed digests of user input and webhook signatures.
import { toBytes } from './bytes.ts';
import { bytesToHex } from './hex.ts';

/** The raw 32-byte MAC, for values derived from a key (the OIDC PKCE verifier and nonce). */
export async function hmacSha256(key: string | Uint8Array, value: string | Uint8Array): Promise<Uint8Array<ArrayBuffer>> {
  // A zero-length HMAC key is legal but turns the MAC into a public hash: refuse it.
  const keyBytes = toBytes(key);
  if (keyBytes.length === 0) throw new RangeError('hmacSha256: the key must not be empty');
  const cryptoKey = await crypto.subtle.importKey('raw', keyBytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return new Uint8Array(await crypto.subtle.sign('HMAC', cryptoKey, toBytes(value)));
}

/** Lowercase hex, 64 characters; string keys and values are UTF-8. */
export async function hmacSha256Hex(key: string | Uint8Array, value: string | Uint8Array): Promise<string> {
  return bytesToHex(await hmacSha256(key, value));
}
