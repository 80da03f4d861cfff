// A strict Content-Security-Policy for HTML the functions serve (the console): scripts and styles only with this response's nonce.
import { base64urlEncode, randomBytes } from '../crypto/index.ts';

/** A fresh nonce for one response: 128 random bits, base64url (CSP accepts it; nothing to escape in a header). */
export function cspNonce(): string {
  return base64urlEncode(randomBytes(16));
}

/** The policy for a page whose inline `<script nonce>` and `<style nonce>` carry `nonce`, and nothing else inline. */
export function consoleCsp(nonce: string): string {
  // A nonce is put into a header: anything but base64url could end the directive or the header.
  if (!/^[A-Za-z0-9_-]{22,}$/.test(nonce)) throw new TypeError('a CSP nonce is at least 128 bits of base64url');
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src 'self' 'nonce-${nonce}'`,
    "img-src 'self' data:",
    "connect-src 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}
