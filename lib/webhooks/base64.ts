// Standard base64 (RFC 4648 §4, the alphabet Standard Webhooks secrets and signatures use), strict on input.
// atob/btoa exist in workerd and Node 20 alike; atob alone is too forgiving (it skips whitespace), hence the checks.

// String.fromCharCode(...chunk) is bounded by the engine's argument limit.
const CHUNK = 0x8000;
const STANDARD_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}(?:==)?|[A-Za-z0-9+/]{3}=?)?$/;

export function encodeBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += CHUNK) binary += String.fromCharCode(...bytes.subarray(i, i + CHUNK));
  return btoa(binary);
}

/** Standard alphabet, padding optional; anything else (whitespace, base64url, stray `=`) is undefined, never an exception. */
export function decodeBase64(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (!STANDARD_BASE64.test(text)) return undefined;
  const binary = atob(text);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}
