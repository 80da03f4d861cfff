// RFC 4648 base32 (A–Z, 2–7), the encoding authenticator apps expect for a TOTP secret.
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** Upper case, without `=` padding (the form otpauth:// URIs carry). */
export function base32Encode(bytes: Uint8Array): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = ((buffer << 8) | byte) & 0xffff;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(buffer >> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += ALPHABET[(buffer << (5 - bits)) & 31];
  return out;
}

/**
 * Accepts either case, with or without padding; throws without echoing the input (it is a secret). Leftover bits must
 * be zero, so every byte string has exactly one accepted spelling.
 */
export function base32Decode(text: string): Uint8Array<ArrayBuffer> {
  const body = text.toUpperCase().replace(/=+$/, '');
  if (!/^[A-Z2-7]*$/.test(body) || [1, 3, 6].includes(body.length % 8)) throw new TypeError('invalid base32 string');
  const out = new Uint8Array(Math.floor((body.length * 5) / 8));
  let buffer = 0;
  let bits = 0;
  let index = 0;
  for (const char of body) {
    buffer = ((buffer << 5) | ALPHABET.indexOf(char)) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      out[index++] = (buffer >> (bits - 8)) & 0xff;
      bits -= 8;
    }
  }
  if ((buffer & ((1 << bits) - 1)) !== 0) throw new TypeError('invalid base32 string');
  return out;
}
