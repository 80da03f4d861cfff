// The enrolment token: it names its own record (user and enrolment id) plus 32 random bytes; only its SHA-256 is
// stored. Its own prefix, and not a JWT: no bearer check anywhere takes it for an access token.
import { base64urlDecode, base64urlEncode, bytesToUuid, randomBytes, uuidToBytes } from '../../crypto/index.ts';

const PREFIX = 'rse_';
const SECRET_BYTES = 32;
const TOKEN_BYTES = 16 + 16 + SECRET_BYTES;
const TOKEN_PATTERN = /^rse_[A-Za-z0-9_-]{86}$/;

export function issueEnrolmentToken(userId: string, enrolmentId: string): string {
  const bytes = new Uint8Array(TOKEN_BYTES);
  bytes.set(uuidToBytes(userId), 0);
  bytes.set(uuidToBytes(enrolmentId), 16);
  bytes.set(randomBytes(SECRET_BYTES), 32);
  return PREFIX + base64urlEncode(bytes);
}

/** The ids a token points at, or undefined for anything that is not a well-formed token. */
export function readEnrolmentToken(token: string): { userId: string; enrolmentId: string } | undefined {
  if (!TOKEN_PATTERN.test(token)) return undefined;
  let bytes: Uint8Array;
  try {
    bytes = base64urlDecode(token.slice(PREFIX.length));
  } catch {
    return undefined;
  }
  if (bytes.length !== TOKEN_BYTES) return undefined;
  return { userId: bytesToUuid(bytes.subarray(0, 16)), enrolmentId: bytesToUuid(bytes.subarray(16, 32)) };
}
