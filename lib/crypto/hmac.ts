// HMAC-SHA256 with WebCrypto, for keyed digests of user input and webhook signatures.
import { toBytes } from './bytes.ts';
import { bytesToHex } from './hex.ts';

/**
 * Imported keys by their text: the keys are the deployment's few configured secrets, and importing one costs more
 * CPU than the MAC itself. Bounded, in case a caller ever passes a key per value: then it only stops helping.
 */
const IMPORTED_KEYS_CAPACITY = 32;
const importedKeys = new Map<string, Promise<CryptoKey>>();

function importHmacKey(keyBytes: Uint8Array<ArrayBuffer>): Promise<CryptoKey> {
  return crypto.subtle.importKey('raw', keyBytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
}

function hmacKey(key: string | Uint8Array, keyBytes: Uint8Array<ArrayBuffer>): Promise<CryptoKey> {
  if (typeof key !== 'string') return importHmacKey(keyBytes);
  let imported = importedKeys.get(key);
  if (imported === undefined) {
    if (importedKeys.size >= IMPORTED_KEYS_CAPACITY) importedKeys.clear();
    imported = importHmacKey(keyBytes);
    importedKeys.set(key, imported);
    // A failed import is not remembered: the next call tries again and sees the error itself.
    imported.catch(() => importedKeys.delete(key));
  }
  return imported;
}

/** The raw 32-byte MAC, for values derived from a key (the OIDC PKCE verifier and nonce). */
export async function hmacSha256(key: string | Uint8Array, value: string | Uint8Array): Promise<Uint8Array<ArrayBuffer>> {
  // A zero-length HMAC key is legal but turns the MAC into a public hash: refuse it.
  const keyBytes = toBytes(key);
  if (keyBytes.length === 0) throw new RangeError('hmacSha256: the key must not be empty');
  const cryptoKey = await hmacKey(key, keyBytes);
  return new Uint8Array(await crypto.subtle.sign('HMAC', cryptoKey, toBytes(value)));
}

/** Lowercase hex, 64 characters; string keys and values are UTF-8. */
export async function hmacSha256Hex(key: string | Uint8Array, value: string | Uint8Array): Promise<string> {
  return bytesToHex(await hmacSha256(key, value));
}
