// Lowercase hex encoding of bytes, the form every digest in keys and payloads uses.
export function bytesToHex(bytes: Uint8Array): string {
  let out = '';
  for (const byte of bytes) out += byte.toString(16).padStart(2, '0');
  return out;
}
