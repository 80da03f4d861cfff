// Public surface of the WebCrypto helpers (no node: imports, no Buffer; runs in workerd and Node).
export { randomBytes, randomToken } from './random.ts';
export { sha256Hex } from './sha256.ts';
export { hmacSha256, hmacSha256Hex } from './hmac.ts';
export { base64urlEncode, base64urlDecode } from './base64url.ts';
export { bytesToHex } from './hex.ts';
export { timingSafeEqual } from './timing-safe-equal.ts';
export { uuidToBytes, bytesToUuid } from './uuid.ts';
export { sealSecret, openSecret, SecretBoxError } from './secret-box.ts';
export type { SecretBinding, SealedSecret } from './secret-box.ts';
