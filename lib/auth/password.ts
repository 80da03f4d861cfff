// Password hashing: PBKDF2-HMAC-SHA256 through WebCrypto, the one KDF that runs natively on Workers and Node alike
// (docs/design/sign-in.md#passwords). Stored as `pbkdf2-sha256$<iterations>$<salt>$<hash>` (base64url), so the cost can rise later.
import { base64urlDecode, base64urlEncode, randomBytes, timingSafeEqual } from '../crypto/index.ts';

/**
 * Workers' WebCrypto refuses PBKDF2 above 100 000 iterations, so that is the cost: the most the slowest runtime we
 * deploy to allows. OWASP asks 600 000 for PBKDF2-SHA256; the throttles (docs/design/limits.md#limits) carry the rest.
 */
export const PBKDF2_ITERATIONS = 100_000;
const SALT_BYTES = 16;
const HASH_BYTES = 32;
const FORMAT = /^pbkdf2-sha256\$(\d{1,7})\$([A-Za-z0-9_-]{22})\$([A-Za-z0-9_-]{43})$/;

/** A password being chosen: long enough that the 100 000-iteration KDF and the throttles hold; no composition rules (NIST SP 800-63B). */
export const MIN_PASSWORD_LENGTH = 12;

/** Longer passwords are refused at the route (HMAC pre-hashes them anyway; this bounds the work an attacker can ask for). */
export const MAX_PASSWORD_LENGTH = 256;

async function derive(password: string, salt: Uint8Array<ArrayBuffer>, iterations: number): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey('raw', new TextEncoder().encode(password.normalize('NFC')), 'PBKDF2', false, ['deriveBits']);
  const bits = await crypto.subtle.deriveBits({ name: 'PBKDF2', hash: 'SHA-256', salt, iterations }, key, HASH_BYTES * 8);
  return new Uint8Array(bits);
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const hash = await derive(password, salt, PBKDF2_ITERATIONS);
  return `pbkdf2-sha256$${PBKDF2_ITERATIONS}$${base64urlEncode(salt)}$${base64urlEncode(hash)}`;
}

// A hash nobody's password matches, so an unknown user costs the same derivation as a known one.
let decoy: Promise<string> | undefined;

/**
 * True when `password` matches `stored`. With no stored hash (unknown user, no password set) it still derives once
 * against a decoy and answers false, so the two cases take the same time.
 */
export async function verifyPassword(password: string, stored: string | null | undefined): Promise<boolean> {
  const match = typeof stored === 'string' ? FORMAT.exec(stored) : null;
  if (match === null) {
    decoy ??= hashPassword(base64urlEncode(randomBytes(24)));
    const [, , salt, hash] = FORMAT.exec(await decoy)!;
    timingSafeEqual(await derive(password, base64urlDecode(salt!), PBKDF2_ITERATIONS), base64urlDecode(hash!));
    return false;
  }
  const iterations = Number(match[1]);
  // A row edited to an absurd cost must not become a denial of service.
  if (iterations < 1 || iterations > PBKDF2_ITERATIONS) return false;
  const derived = await derive(password, base64urlDecode(match[2]!), iterations);
  return timingSafeEqual(derived, base64urlDecode(match[3]!));
}
