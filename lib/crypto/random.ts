// Cryptographically random bytes and URL-safe tokens from WebCrypto.
import { base64urlEncode } from './base64url.ts';

// getRandomValues refuses more than 65536 bytes per call.
const MAX_CHUNK = 65_536;

export function randomBytes(length: number): Uint8Array<ArrayBuffer> {
  if (!Number.isSafeInteger(length) || length < 0) throw new RangeError('randomBytes: length must be a non-negative integer');
  const out = new Uint8Array(length);
  for (let offset = 0; offset < length; offset += MAX_CHUNK) {
    crypto.getRandomValues(out.subarray(offset, Math.min(offset + MAX_CHUNK, length)));
  }
  return out;
}

// Opaque random tokens: refresh tokens, reset tokens, handoff codes, OIDC states.
/** A base64url token (no padding) of `bytes` random bytes; 32 bytes give 256 bits and 43 characters. */
export function randomToken(bytes = 32): string {
  if (!Number.isSafeInteger(bytes) || bytes < 16) throw new RangeError('randomToken: at least 16 bytes');
  return base64urlEncode(randomBytes(bytes));
}
