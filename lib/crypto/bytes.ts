// Turns text or bytes into the ArrayBuffer-backed bytes WebCrypto accepts.
const encoder = new TextEncoder();

/** Strings are UTF-8 encoded; byte arrays are copied so a shared or resizable buffer never reaches WebCrypto. */
export function toBytes(input: string | Uint8Array): Uint8Array<ArrayBuffer> {
  return typeof input === 'string' ? encoder.encode(input) : new Uint8Array(input);
}
