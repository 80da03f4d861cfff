// Public surface of the WebCrypto helpers (no node: imports, no Buffer; runs in workerd and Node).
export { randomBytes, randomToken } from './random.ts';
export { sha256Hex } from './sha256.ts';
export { hmacSha256, hmacSha256Hex } from './hmac.ts';
export { base64urlEncode, base64urlDecode } from './base64url.ts';
export { bytesToHex } from './hex.ts';
export { timingSafeEqual } from './timing-safe-equal.ts';
export { uuidToBytes, bytesToUuid } from './uuid.ts';
export { idPairToken } from './id-pair-token.ts';
export { base32Encode, base32Decode } from './base32.ts';
export { matchTotp, totpCode, totpStep, TOTP_STEP_SECONDS } from './totp.ts';
export { sealSecret, openSecret, SecretBoxError } from './secret-box.ts';
export type { SecretBinding, SealedSecret, SigningKeyBinding, SyrvePasswordBinding, TotpSecretBinding } from './secret-box.ts';
